/* Where Lustre servers keep their statistics, below a root directory
 * ("/" or a fixture tree): finding the OSTs and MDTs of a server by
 * listing directories, and resolving, per target, the files each Lustre
 * version uses (docs/collectors-lustre.md has the table):
 *
 *   OST stats, job_stats, exports/<nid>/stats:
 *     proc/fs/lustre/obdfilter/<t>/            (1.8 .. 2.15)
 *     sys/kernel/debug/lustre/obdfilter/<t>/   (debugfs builds)
 *     sys/fs/lustre/obdfilter/<t>/
 *   OST brw_stats:
 *     proc/fs/lustre/obdfilter/<t>/brw_stats   (1.8 .. 2.10; a link to
 *                                               osd-* from 2.4)
 *     proc/fs/lustre/osd-<backend>/<t>/brw_stats       (2.4 .. 2.14)
 *     sys/kernel/debug/lustre/osd-<backend>/<t>/brw_stats (2.15)
 *     sys/kernel/debug/lustre/obdfilter/<t>/brw_stats
 *   MDT md_stats, job_stats, exports/<nid>/stats:
 *     proc/fs/lustre/mdt/<t>/, sys/kernel/debug/lustre/mdt/<t>/,
 *     sys/fs/lustre/mdt/<t>/                   (2.x)
 *     proc/fs/lustre/mds/<t>/stats             (1.8, <t> = fsname-MDTxxxx)
 *
 * The I/O half of the Lustre target server (collectors/lustresrv); the
 * format parsers of collectors/lustre never touch files. */
#ifndef BCN_LUSTRE_TREE_H
#define BCN_LUSTRE_TREE_H

#include <stddef.h>
#include <stdint.h>

#define BCN_LUSTRE_TARGET_MAX 64        /* longest target name + NUL */
#define BCN_LUSTRE_PATH_MAX 1024        /* longest resolved path + NUL */
#define BCN_LUSTRE_TARGETS_MAX 1024     /* targets of one server */

enum bcn_lustre_role {
	BCN_LUSTRE_OST = 0,     /* obdfilter: object storage targets */
	BCN_LUSTRE_MDT,         /* mdt (mds on 1.8): metadata targets */
};

/* The files of one target; "" where none exists. */
struct bcn_lustre_target {
	char name[BCN_LUSTRE_TARGET_MAX];
	char stats[BCN_LUSTRE_PATH_MAX];        /* stats or md_stats */
	char job_stats[BCN_LUSTRE_PATH_MAX];
	char brw_stats[BCN_LUSTRE_PATH_MAX];    /* OST only */
	char exports[BCN_LUSTRE_PATH_MAX];      /* directory of <nid>/stats */
};

/* Called with each target name found; a negative return stops. */
typedef int bcn_lustre_name_fn(void *arg, const char *name);

/* Lists the targets of a role below root: the directory entries of the
 * role's bases (each name once, in no particular order; names longer
 * than BCN_LUSTRE_TARGET_MAX - 1 bytes are skipped). Bases that do not
 * exist are not an error. Returns the number of names (>= 0) or fn's
 * negative return. */
int bcn_lustre_list_targets(const char *root, enum bcn_lustre_role role,
			    bcn_lustre_name_fn *fn, void *arg);

/* Fills t->stats, job_stats, brw_stats and exports for target name
 * (t->name too) with the first existing path of each in the order above.
 * Returns 0, -EINVAL for a bad name, or -BCN_EFULL when a path would not
 * fit. */
int bcn_lustre_resolve(const char *root, enum bcn_lustre_role role,
		       const char *name, struct bcn_lustre_target *t);

/* Reads path in chunks of up to len bytes into buf, handing each to
 * fn(arg, chunk, n) (a negative return stops). Returns 0, -errno, or
 * fn's negative return. */
typedef int bcn_lustre_chunk_fn(void *arg, const char *chunk, size_t n);
int bcn_lustre_stream(const char *path, char *buf, size_t len,
		      bcn_lustre_chunk_fn *fn, void *arg);

/* Reads the file rel (e.g. "<nid>/stats") relative to the open directory
 * dirfd into buf (at most len bytes) and stores its size in *n.
 * Returns 0, -errno, or -BCN_EFULL for a larger file. */
int bcn_lustre_read_at(int dirfd, const char *rel, char *buf, size_t len,
		       size_t *n);

#endif
