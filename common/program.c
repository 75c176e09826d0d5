/* One main() for every beacon daemon and server (common/program.h). */
#include <errno.h>
#include <stdio.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/program.h"

#define DUMP_MAX (1u << 20)             /* largest --dump-config output */

static const char *synopsis(const struct bcn_program *p)
{
	return p->synopsis ? p->synopsis : "[--KEY VALUE ...]";
}

static void help(const struct bcn_program *p)
{
	printf("usage: %s %s\n%s\n\n", p->name, synopsis(p), p->description);
	bcn_config_help(p->options, stdout);
}

static int dump(const struct bcn_program *p)
{
	struct bcn_buf b;
	int rc;

	bcn_buf_init(&b, DUMP_MAX);
	rc = bcn_config_dump(p->options, p->conf, &b);
	if (!rc && fwrite(b.data, 1, b.len, stdout) != b.len)
		rc = -EIO;
	if (!rc && fflush(stdout) != 0)
		rc = -EIO;
	bcn_buf_free(&b);
	if (rc) {
		fprintf(stderr, "%s: %s\n", p->name, bcn_strerror(rc));
		return BCN_EXIT_FAIL;
	}
	return BCN_EXIT_OK;
}

int bcn_program_main(const struct bcn_program *p, int argc, char **argv)
{
	char err[BCN_CFG_ERR_MAX] = "";
	int argi = 1, rc;

	rc = bcn_config_defaults(p->options, p->conf, err, sizeof(err));
	if (!rc)
		rc = bcn_config_getopt(p->options, p->conf, argc, argv, &argi,
				       err, sizeof(err));
	if (rc == BCN_CONFIG_HELP) {
		help(p);
		return BCN_EXIT_OK;
	}
	if (rc == BCN_CONFIG_DUMP)
		return dump(p);
	if (!rc && argi < argc) {
		snprintf(err, sizeof(err), "unexpected argument '%s'", argv[argi]);
		rc = -EINVAL;
	}
	if (!rc && p->check)
		rc = p->check(p, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: %s\n", p->name,
			err[0] ? err : bcn_strerror(rc));
		fprintf(stderr, "usage: %s %s (--help lists the keys)\n",
			p->name, synopsis(p));
		return BCN_EXIT_USAGE;
	}
	return p->run(p);
}
