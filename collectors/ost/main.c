/* beacon-ostd: the OSS collector (collectors/lustre/lustre_daemon.c). */
#include "collectors/lustre/lustre_daemon.h"

int main(int argc, char **argv)
{
	return bcn_program_main(&bcn_ostd_program, argc, argv);
}
