/* beacon-clientd: compute-node collector (collectors/client/clientd.c). */
#include "collectors/client/clientd.h"

int main(int argc, char **argv)
{
	return bcn_program_main(&bcn_clientd_program, argc, argv);
}
