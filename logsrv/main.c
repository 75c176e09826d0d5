/* beacon-logsrv: the log server (logsrv/program.c, docs/logsrv.md). */
#include "logsrv/logsrv.h"

int main(int argc, char **argv)
{
	return bcn_program_main(&bcn_logsrv_program, argc, argv);
}
