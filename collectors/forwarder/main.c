/* beacon-fwdd: the forwarding-node collector (collectors/forwarder/fwdd.h,
 * docs/collectors.md, docs/fwdlog.md). */
#include "collectors/forwarder/fwdd.h"

int main(int argc, char **argv)
{
	return bcn_program_main(&bcn_fwdd_program, argc, argv);
}
