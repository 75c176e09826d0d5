/* beacon-mdsd: the MDS collector (collectors/mds/mdsd.c). */
#include "collectors/mds/mdsd.h"

int main(int argc, char **argv)
{
	return bcn_program_main(&bcn_mdsd_program, argc, argv);
}
