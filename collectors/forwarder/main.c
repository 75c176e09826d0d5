/* beacon-fwdd: the forwarding-node collector (collectors/forwarder/fwdd.h,
 * docs/collectors.md, docs/fwdlog.md). */
#include "collectors/forwarder/fwdd.h"

int main(int argc, char **argv)
{
	static struct bcn_fwdd_conf conf;
	static struct bcn_fwdd state;

	state.conf = &conf;
	return bcn_collector_main(argc, argv, "beacon-fwdd",
				  "Forwarding-node collector: windowed request "
				  "statistics from the forwarding server's "
				  "request log (docs/fwdlog.md) and the Lustre "
				  "client's RPCs per OST.",
				  bcn_fwdd_options, &conf, &conf.cc,
				  &bcn_fwdd_ops, &state);
}
