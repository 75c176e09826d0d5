/* The shard map: one text file, shared by collectors and log servers, that
 * assigns groups of nodes (hostlist expressions) to a primary and an
 * optional fallback log server, with a default for unlisted nodes.
 * File format and lookup rules: docs/shardmap.md. */
#ifndef BCN_SHARDMAP_H
#define BCN_SHARDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Nodes all shard lines together may name. */
#define BCN_SHARDMAP_MAX_HOSTS  1048576
/* Shard lines in one map. */
#define BCN_SHARDMAP_MAX_SHARDS 4096
/* Largest shard map file bcn_shardmap_load() reads. */
#define BCN_SHARDMAP_MAX_FILE   (16 * 1024 * 1024)
/* Longest line, in bytes, without its line end. */
#define BCN_SHARDMAP_LINE_MAX   65536
/* Longest endpoint host name or address (IPv6 without brackets). */
#define BCN_SHARDMAP_HOST_MAX   255
/* Longest shard name. */
#define BCN_SHARDMAP_NAME_MAX   63

/* A log server address. */
struct bcn_shard_endpoint {
	char host[BCN_SHARDMAP_HOST_MAX + 1];   /* "" when unset */
	uint16_t port;                          /* 1..65535, 0 when unset */
	bool ipv6;                              /* host is an IPv6 literal */
};

/* One shard line (or the default line) of a map. */
struct bcn_shard {
	size_t index;           /* 0-based order of shard lines; the default
				 * has index == bcn_shardmap_count() */
	unsigned line;          /* 1-based line in the file */
	bool is_default;
	char name[BCN_SHARDMAP_NAME_MAX + 1];   /* name= or "shard<index>";
						 * "default" for the default */
	const char *hostlist;   /* the expression as written; "" for default */
	size_t nhosts;          /* distinct nodes of the shard */
	struct bcn_shard_endpoint primary;
	struct bcn_shard_endpoint fallback;     /* valid if has_fallback */
	bool has_fallback;
};

struct bcn_shardmap;

/* Parses a shard map held in buf[0..len-1] (need not be NUL-terminated)
 * into a new map stored in *out (NULL on failure), freed by the caller
 * with bcn_shardmap_free(). Shard lines together may name at most
 * max_hosts nodes (capped at BCN_SHARDMAP_MAX_HOSTS).
 * Returns 0, -EINVAL (NULL argument), -ENOMEM, -BCN_ESYNTAX (grammar,
 * unknown keyword or key, node in two shards, duplicate name or default,
 * no shard at all), -BCN_ERANGE (bad port, field too long, too many
 * shards) or -BCN_ETOOBIG (more than max_hosts nodes). On error a message
 * naming the line (and the other line, for conflicts) goes to err. */
int bcn_shardmap_parse_max(const char *buf, size_t len, size_t max_hosts,
			   struct bcn_shardmap **out, char *err, size_t errlen);

/* bcn_shardmap_parse_max() with max_hosts BCN_SHARDMAP_MAX_HOSTS. */
int bcn_shardmap_parse(const char *buf, size_t len, struct bcn_shardmap **out,
		       char *err, size_t errlen);

/* Reads the file at path (at most BCN_SHARDMAP_MAX_FILE bytes) and parses
 * it as bcn_shardmap_parse() does; the message in err then starts with the
 * path. Also returns -errno when the file cannot be read and -BCN_EFULL
 * when it is too large. */
int bcn_shardmap_load(const char *path, struct bcn_shardmap **out,
		      char *err, size_t errlen);

/* Frees a map; NULL is a no-op. Pointers it handed out become invalid. */
void bcn_shardmap_free(struct bcn_shardmap *m);

/* Returns the shard whose host list names node (NUL-terminated), else the
 * default shard, else NULL (also for a NULL map). Constant expected time. */
const struct bcn_shard *bcn_shardmap_lookup(const struct bcn_shardmap *m,
					    const char *node);

/* bcn_shardmap_lookup() for node[0..len-1], which need not be
 * NUL-terminated. */
const struct bcn_shard *bcn_shardmap_lookup_n(const struct bcn_shardmap *m,
					      const char *node, size_t len);

/* Number of shard lines (the default not counted); 0 for NULL. */
size_t bcn_shardmap_count(const struct bcn_shardmap *m);

/* Returns shard i (0 <= i < bcn_shardmap_count()) in file order, else
 * NULL. */
const struct bcn_shard *bcn_shardmap_get(const struct bcn_shardmap *m,
					 size_t i);

/* Returns the default shard, or NULL if the map has no default line. */
const struct bcn_shard *bcn_shardmap_default(const struct bcn_shardmap *m);

/* Number of distinct nodes named by all shard lines; 0 for NULL. */
size_t bcn_shardmap_nhosts(const struct bcn_shardmap *m);

/* Writes ep as "host:port" ("[addr]:port" for IPv6) into dst.
 * Returns 0, -EINVAL (NULL argument or unset endpoint) or -BCN_EFULL
 * (dstlen too small; dst then holds a truncated string if dstlen > 0). */
int bcn_shardmap_endpoint_str(const struct bcn_shard_endpoint *ep, char *dst,
			      size_t dstlen);

#endif
