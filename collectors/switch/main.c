/* beacon-swd: InfiniBand port counter collector (collectors/switch/swd.c). */
#include "collectors/switch/swd.h"

int main(int argc, char **argv)
{
	return bcn_swd_main(argc, argv);
}
