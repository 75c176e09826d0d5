/* beacon-analyzd: the analysis server (analysis/analyzd.h). */
#include "common/program.h"

extern const struct bcn_program bcn_analyzd_program;

int main(int argc, char **argv)
{
	return bcn_program_main(&bcn_analyzd_program, argc, argv);
}
