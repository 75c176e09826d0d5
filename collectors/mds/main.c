/* beacon-mdsd: the MDS collector (collectors/lustre/lustre_daemon.c). */
#include "collectors/lustre/lustre_daemon.h"

int main(int argc, char **argv)
{
	return bcn_program_main(&bcn_mdsd_program, argc, argv);
}
