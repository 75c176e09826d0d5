/* beacon-ostd: the OSS collector (collectors/ost/ostd.c). */
#include "collectors/ost/ostd.h"

int main(int argc, char **argv)
{
	return bcn_program_main(&bcn_ostd_program, argc, argv);
}
