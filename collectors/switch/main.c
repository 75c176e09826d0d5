/* beacon-swd: InfiniBand port counter collector (collectors/switch/swd.c). */
#include "collectors/switch/swd.h"

int main(int argc, char **argv)
{
	return bcn_program_main(&bcn_swd_program, argc, argv);
}
