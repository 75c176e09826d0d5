/* beacon user add NAME --role admin|user [--password-file F]
 * beacon user del NAME
 * beacon user passwd NAME [--password-file F]
 * The web service's accounts in the job database (jobdb/users.h,
 * docs/api.md). A password comes from --password-file (its first line)
 * or is asked twice on the terminal without echo; never from the command
 * line. The configuration file's jobdb_* keys apply. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "common/error.h"
#include "jobdb/jobdb.h"
#include "jobdb/users.h"

#define PW_BUF (BCN_USER_PASSWORD_MAX + 2)

struct user_conf {
	struct bcn_jobdb_config db;
	char role[16];
	char password_file[PATH_MAX];
};

#define M(m) BCN_CFG_MEMBER(struct user_conf, m)
static const struct bcn_config_opt tab[] = {
	BCN_JOBDB_CONFIG_OPTIONS(struct user_conf, db),
	{ "role", BCN_CFG_STRING, M(role), .def = "user",
	  .help = "add: the account's role, admin or user." },
	{ "password_file", BCN_CFG_PATH, M(password_file),
	  .help = "add, passwd: read the password from the first line of "
		  "this file instead of asking on the terminal." },
	{ .name = NULL }
};
#undef M

/* Removes a trailing "\n" or "\r\n"; returns the length. */
static size_t chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return n;
}

static int read_file(const char *path, char *pw, size_t cap)
{
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!f)
		return -errno;
	if (!fgets(pw, (int)cap, f))
		rc = -BCN_ESYNTAX;
	else if (!strchr(pw, '\n') && !feof(f))
		rc = -BCN_ERANGE;
	fclose(f);
	return rc;
}

/* Asks on the terminal with echo off. */
static int ask(FILE *tty, const char *prompt, char *pw, size_t cap)
{
	struct termios old, quiet;
	int fd = fileno(tty), rc = 0;

	if (tcgetattr(fd, &old))
		return -ENOTTY;
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	fprintf(tty, "%s", prompt);
	fflush(tty);
	tcsetattr(fd, TCSAFLUSH, &quiet);
	if (!fgets(pw, (int)cap, tty))
		rc = -EIO;
	tcsetattr(fd, TCSAFLUSH, &old);
	fprintf(tty, "\n");
	return rc;
}

static int prompt_twice(char *pw, char *again, size_t cap)
{
	FILE *tty = fopen("/dev/tty", "r+");
	int rc;

	if (!tty)
		return -ENOTTY;
	rc = ask(tty, "New password: ", pw, cap);
	if (!rc)
		rc = ask(tty, "Again: ", again, cap);
	fclose(tty);
	if (!rc && strcmp(pw, again))
		rc = -EINVAL;
	return rc;
}

/* The new password's hash into hash. */
static int new_hash(const struct user_conf *c, char *hash, char *err,
		    size_t n)
{
	static char pw[PW_BUF], again[PW_BUF];
	size_t len;
	int rc;

	rc = c->password_file[0] ? read_file(c->password_file, pw, sizeof(pw)) :
	     prompt_twice(pw, again, sizeof(pw));
	sodium_memzero(again, sizeof(again));
	if (rc == -EINVAL)
		return bcn_fail(err, n, rc, "the passwords differ");
	if (rc == -ENOTTY)
		return bcn_fail(err, n, rc, "no terminal to ask the password "
				"on: give --password-file");
	if (rc)
		return bcn_fail(err, n, rc, "cannot read the password: %s",
				bcn_strerror(rc));
	len = chomp(pw);
	rc = bcn_user_hash_password(pw, len, hash);
	sodium_memzero(pw, sizeof(pw));
	if (rc == -BCN_ERANGE)
		return bcn_fail(err, n, rc, "a password has %d to %d bytes",
				BCN_USER_PASSWORD_MIN, BCN_USER_PASSWORD_MAX);
	if (rc)
		return bcn_fail(err, n, rc, "cannot hash the password");
	return 0;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int run(struct user_conf *c, const char *sub, const char *name,
	       char *err, size_t n)
{
	char hash[BCN_USER_HASH_MAX];
	struct bcn_jobdb *db = NULL;
	int role = bcn_user_role_parse(c->role), rc;

	if (!strcmp(sub, "add") && role < 0)
		return bcn_fail(err, n, -BCN_ESYNTAX, "--role is admin or user");
	if (strcmp(sub, "del") && (rc = new_hash(c, hash, err, n)))
		return rc;
	if ((rc = bcn_jobdb_open(&c->db, &db, err, n)))
		return rc;
	if (!strcmp(sub, "add")) {
		rc = bcn_jobdb_user_add(db, name, role, hash, now_ns());
		if (rc == -EEXIST)
			bcn_seterr(err, n, "user '%s' exists", name);
	} else {
		rc = !strcmp(sub, "del") ? bcn_jobdb_user_del(db, name) :
		     bcn_jobdb_user_passwd(db, name, hash);
		if (rc == 0) {
			rc = -ENOENT;
			bcn_seterr(err, n, "no user '%s'", name);
		} else if (rc > 0) {
			rc = 0;
		}
	}
	if (rc && rc != -EEXIST && rc != -ENOENT)
		bcn_seterr(err, n, "%s", bcn_jobdb_error(db));
	bcn_jobdb_close(db);
	return rc;
}

int bcn_cmd_user(int argc, char **argv)
{
	static struct user_conf c;
	const char *sub, *name;
	char err[512];
	int rc, argi;

	if (argc < 3 || argv[1][0] == '-' || argv[2][0] == '-' ||
	    (strcmp(argv[1], "add") && strcmp(argv[1], "del") &&
	     strcmp(argv[1], "passwd"))) {
		fprintf(stderr, "usage: beacon user add|del|passwd NAME "
			"[--config FILE] [--role admin|user] "
			"[--password-file F]\n");
		if (argc > 1 && (!strcmp(argv[1], "--help") ||
				 !strcmp(argv[1], "-h"))) {
			bcn_config_help(tab, stdout);
			return 0;
		}
		return 2;
	}
	sub = argv[1];
	name = argv[2];
	memset(&c, 0, sizeof(c));
	rc = bcn_cli_configure(tab, &c, "jobdb_", argc - 2, argv + 2, &argi,
			       err, sizeof(err));
	if (rc == BCN_CONFIG_HELP) {
		bcn_config_help(tab, stdout);
		return 0;
	}
	if (!rc && argi < argc - 2)
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "unexpected "
			      "argument '%s'", argv[2 + argi]);
	if (!rc && !bcn_user_name_ok(name))
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "bad user name "
			      "'%s' (1 to %d of A-Z a-z 0-9 . _ -)", name,
			      BCN_USER_NAME_MAX);
	if (rc) {
		fprintf(stderr, "beacon user: %s\n", err);
		return 2;
	}
	rc = run(&c, sub, name, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "beacon user %s: %s\n", sub, err);
		return 1;
	}
	return 0;
}
