/* beacon keygen [--bytes N] [--force] FILE: writes a new random site key
 * (docs/sender.md) to FILE as hexadecimal text, creating the file with
 * mode 0600. beacon keygen --node NAME --site-key SITE [--force] FILE
 * writes the key of node NAME derived from the site key (docs/protocol.md,
 * "Keys"). It refuses to overwrite an existing file unless --force. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "proto/auth.h"
#include "common/error.h"

#define KEYGEN_DEFAULT_BYTES 32

static void usage(FILE *out)
{
	fprintf(out,
		"usage: beacon keygen [--bytes N] [--force] FILE\n"
		"       beacon keygen --node NAME --site-key SITE [--force] FILE\n"
		"Writes a new random site key of N bytes (default %d, %d..%d)\n"
		"as hexadecimal text to FILE, created with mode 0600. Give it to\n"
		"every log server of the site.\n"
		"With --node, writes instead the key of node NAME, derived from\n"
		"the site key in SITE: give it to that node's collectors only; it\n"
		"authenticates NAME and no other node, and the log servers need\n"
		"nothing but the site key to check it.\n"
		"--force replaces an existing FILE.\n",
		KEYGEN_DEFAULT_BYTES, BCN_AUTH_KEY_MIN, BCN_AUTH_KEY_MAX);
}

/* Writes the whole buffer to a new file at path. */
static int write_key(const char *path, const struct bcn_buf *text, int force)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
		    (force ? O_TRUNC : O_EXCL);
	size_t off = 0;
	int fd, rc = 0;

	fd = open(path, flags, 0600);
	if (fd < 0)
		return -errno;
	/* an existing file keeps its mode through O_TRUNC */
	if (fchmod(fd, 0600) < 0)
		rc = -errno;
	while (!rc && off < text->len) {
		ssize_t n = write(fd, text->data + off, text->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		else
			off += (size_t)n;
	}
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

/* The key of node from the site key file at site_path. Returns 0,
 * -ECANCELED after printing why, or a negative code. */
static int node_key(const char *site_path, const char *node,
		    struct bcn_auth_key *out)
{
	struct bcn_auth_key site;
	char err[512];
	int rc = bcn_auth_key_load(site_path, &site, err, sizeof(err));

	if (rc) {
		fprintf(stderr, "beacon keygen: %s\n", err);
		return -ECANCELED;
	}
	if (site.node[0]) {
		fprintf(stderr, "beacon keygen: %s is the key of node %s, not a "
			"site key\n", site_path, site.node);
		bcn_auth_key_wipe(&site);
		return -ECANCELED;
	}
	rc = bcn_auth_node_key(&site, node, out);
	bcn_auth_key_wipe(&site);
	if (rc) {
		fprintf(stderr, "beacon keygen: --node: a name of 1 to %d "
			"bytes\n", BCN_NODE_MAX);
		return -ECANCELED;
	}
	return 0;
}

int bcn_cmd_keygen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bytes", required_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'f' },
		{ "node", required_argument, NULL, 'n' },
		{ "site-key", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bcn_auth_key key;
	struct bcn_buf text;
	long bytes = KEYGEN_DEFAULT_BYTES;
	const char *node = NULL, *site = NULL;
	int opt, force = 0, rc;
	char *end;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			errno = 0;
			bytes = strtol(optarg, &end, 10);
			if (errno || *end || bytes < BCN_AUTH_KEY_MIN ||
			    bytes > BCN_AUTH_KEY_MAX) {
				fprintf(stderr, "beacon keygen: --bytes: %d to "
					"%d\n", BCN_AUTH_KEY_MIN,
					BCN_AUTH_KEY_MAX);
				return 2;
			}
			break;
		case 'f':
			force = 1;
			break;
		case 'n':
			node = optarg;
			break;
		case 's':
			site = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !node != !site) {
		usage(stderr);
		return 2;
	}
	bcn_buf_init(&text, 4 * BCN_AUTH_KEY_MAX + BCN_NODE_MAX + 8);
	rc = node ? node_key(site, node, &key)
		  : bcn_auth_key_generate(&key, (size_t)bytes);
	if (rc == -ECANCELED) {
		bcn_buf_free(&text);
		return 1;               /* node_key said why */
	}
	if (!rc)
		rc = bcn_auth_key_format(&key, &text);
	if (!rc)
		rc = write_key(argv[optind], &text, force);
	if (text.data)
		memset(text.data, 0, text.cap);
	bcn_buf_free(&text);
	bcn_auth_key_wipe(&key);
	if (rc) {
		fprintf(stderr, "beacon keygen: %s: %s%s\n", argv[optind],
			bcn_strerror(rc), rc == -EEXIST ?
			" (use --force to replace it)" : "");
		return 1;
	}
	return 0;
}
