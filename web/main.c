/* beacon-web: the web service (web/program.c, docs/api.md). */
#include "web/web.h"

int main(int argc, char **argv)
{
	return bcn_program_main(&bcn_web_program, argc, argv);
}
