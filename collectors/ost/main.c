/* beacon-ostd: OSS/OST statistics collector (collectors/ost/ostd.c). */
#include "collectors/ost/ostd.h"

int main(int argc, char **argv)
{
	return bcn_ostd_main(argc, argv);
}
