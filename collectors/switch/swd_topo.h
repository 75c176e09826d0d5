/* beacon-swd's topology: the fabric's ibnetdiscover file (topology_file)
 * read at start, again when it changes, and sent as one topology record
 * per cabled switch port at start, on change and every
 * topology_interval (docs/network.md, "Topology"). */
#ifndef BCN_SWD_TOPO_H
#define BCN_SWD_TOPO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collectors/runtime/collector.h"
#include "common/buf.h"
#include "common/log.h"

#define BCN_SWD_TOPO_FILE_MAX (64u << 20)      /* bytes of the file */
#define BCN_SWD_TOPO_LINKS_MAX 262144          /* links sent per round */

struct bcn_swd_topo {
	const char *path;               /* "": none */
	int64_t every_ns;               /* resend period */
	int64_t sent;                   /* when last sent, 0 never */
	dev_t dev;                      /* the file as last sent */
	ino_t ino;
	int64_t mtime_ns;
	off_t size;
	uint64_t links;                 /* sent last time */
	struct bcn_buf buf;
	struct bcn_complain c;
};

/* Sends the topology when it is due at now (ns): never sent, the file
 * changed (device, inode, size or modification time) or every_ns since
 * the last time. A file that cannot be read is reported (rate-limited)
 * and tried again next sample; one with a malformed line is reported,
 * its links before that line sent, and read again when due. Returns 0 or -ENOMEM. */
int bcn_swd_topo_sample(struct bcn_swd_topo *t, struct bcn_collector *c,
			int64_t now);

void bcn_swd_topo_free(struct bcn_swd_topo *t);

#endif
