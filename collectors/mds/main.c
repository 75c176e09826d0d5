/* beacon-mdsd: MDS/MDT metadata statistics collector
 * (collectors/mds/mdsd.c). */
#include "collectors/mds/mdsd.h"

int main(int argc, char **argv)
{
	return bcn_mdsd_main(argc, argv);
}
