/* Which record types each node may send (docs/logsrv.md, "Roles"): a
 * role map file names a role per group of nodes, a role allows a set of
 * record types, and the log server rejects a DATA frame holding a record
 * outside its sender's role. With per-node keys (docs/protocol.md, "Keys")
 * a compromised compute node can then neither speak for another node nor
 * write OST, MDT, switch or job records.
 *
 * Role map file: '#' comments and blank lines; each other line
 * `<hostlist> <role>`, the hostlist in Slurm syntax (docs/hostlist.md).
 * A node named on several lines gets the last line's role. */
#ifndef BCN_ROLES_H
#define BCN_ROLES_H

#include <stddef.h>
#include <stdint.h>

/* Roles and the record types (bits 1 << enum bcn_rec_type) they allow. */
#define BCN_ROLES(X) \
	X(ANY, "any") X(COMPUTE, "compute") X(FORWARDING, "forwarding") \
	X(OSS, "oss") X(MDS, "mds") X(SWITCH, "switch") \
	X(SCHEDULER, "scheduler") X(NONE, "none")

#define BCN_X_ROLE(id, name) BCN_ROLE_##id,
enum bcn_role { BCN_ROLES(BCN_X_ROLE) BCN_ROLE_MAX };
#undef BCN_X_ROLE

#define BCN_ROLES_FILE_MAX (16u << 20)  /* largest role map file */
#define BCN_ROLES_NODES_MAX (1u << 20)  /* nodes named in one file */

extern const char *const bcn_role_names[BCN_ROLE_MAX + 1];

/* The record types a role allows, as a bit set over enum bcn_rec_type. */
uint32_t bcn_role_types(int role);

struct bcn_roles;

/* Parses a role map held in buf[0..len) (pure: no I/O). dflt is the role
 * of nodes the file does not name. Returns 0 and *out, or -BCN_ESYNTAX
 * (with line and reason in err), -BCN_ETOOBIG (more than
 * BCN_ROLES_NODES_MAX nodes) or -ENOMEM. */
int bcn_roles_parse(const char *buf, size_t len, int dflt,
		    struct bcn_roles **out, char *err, size_t errlen);

/* Reads and parses the file at path. Same returns, or -errno. */
int bcn_roles_load(const char *path, int dflt, struct bcn_roles **out,
		   char *err, size_t errlen);

/* The role of a node: the map's, or its default when the map does not
 * name the node; BCN_ROLE_ANY when there is no map (r NULL). */
int bcn_roles_of(const struct bcn_roles *r, const char *node);

/* Number of nodes the map names. */
size_t bcn_roles_count(const struct bcn_roles *r);

void bcn_roles_free(struct bcn_roles *r);

#endif
