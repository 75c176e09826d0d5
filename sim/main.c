/* beacon-sim: cluster simulator (sim/sim.h). */
#include "sim/sim.h"

int main(int argc, char **argv)
{
	return bcn_sim_main(argc, argv);
}
