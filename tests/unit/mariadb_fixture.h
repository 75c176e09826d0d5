/* A private MariaDB server for unit tests, as the tests start their own
 * Redis: mariadb-install-db into a temporary directory, mariadbd on a
 * socket there and a free loopback port, a database "beacon" and a user
 * "beacon" whose password is drawn at random into a 0600 file. No
 * system-wide server is involved. */
#ifndef BCN_MARIADB_FIXTURE_H
#define BCN_MARIADB_FIXTURE_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mysql.h>

#include "jobdb/jobdb.h"

struct mdb {
	char dir[256];
	pid_t pid;
	struct bcn_jobdb_config cfg;    /* the beacon user over TCP */
};

static inline int mdb_installed(void)
{
	return system("command -v mariadbd >/dev/null 2>&1 || "
		      "test -x /usr/sbin/mariadbd") == 0;
}

static inline int mdb_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &l))
		return -1;
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* Runs SQL as root over the socket (setup only: constant statements and
 * a password of hex digits). */
static inline int mdb_root(struct mdb *m, const char *const *stmts)
{
	char sock[300];
	MYSQL *my = mysql_init(NULL);
	int rc = 0;

	snprintf(sock, sizeof(sock), "%s/sock", m->dir);
	if (!my || !mysql_real_connect(my, NULL, "root", NULL, NULL, 0, sock, 0))
		rc = -1;
	for (; !rc && *stmts; stmts++)
		if (mysql_query(my, *stmts))
			rc = -1;
	if (rc && my)
		fprintf(stderr, "mdb: %s\n", mysql_error(my));
	if (my)
		mysql_close(my);
	return rc;
}

/* The number a one-value query (constant text) gives, as root; -1 on
 * error. */
static inline long long mdb_value(struct mdb *m, const char *query)
{
	char sock[300];
	MYSQL *my = mysql_init(NULL);
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	long long v = -1;

	snprintf(sock, sizeof(sock), "%s/sock", m->dir);
	if (my && mysql_real_connect(my, NULL, "root", NULL, NULL, 0, sock, 0) &&
	    !mysql_query(my, query) && (res = mysql_store_result(my)) &&
	    (row = mysql_fetch_row(res)) && row[0])
		v = strtoll(row[0], NULL, 10);
	if (res)
		mysql_free_result(res);
	if (my)
		mysql_close(my);
	return v;
}

/* Starts the server. Returns 0, or -1 (message on stderr). */
static inline int mdb_start(struct mdb *m)
{
	char cmd[2048], sock[300], pw[65], pwfile[300], grant[400];
	const char *setup[4];
	unsigned char rnd[32];
	int port = mdb_free_port();
	FILE *f;

	memset(m, 0, sizeof(*m));
	snprintf(m->dir, sizeof(m->dir), "/tmp/bcn-mdb-XXXXXX");
	if (port < 0 || !mkdtemp(m->dir))
		return -1;
	/* a tmpdir of its own: a server deletes every #sql* file in its
	 * tmpdir when it starts (with /tmp, another test's server's
	 * temporary tables) */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/tmp && "
		 "mariadb-install-db --no-defaults "
		 "--datadir=%s/data --user=$(id -un) --skip-test-db "
		 "--tmpdir=%s/tmp "
		 "--auth-root-authentication-method=socket >%s/install.log 2>&1",
		 m->dir, m->dir, m->dir, m->dir);
	if (system(cmd)) {
		fprintf(stderr, "mdb: mariadb-install-db failed (%s/install.log)\n",
			m->dir);
		return -1;
	}
	snprintf(sock, sizeof(sock), "%s/sock", m->dir);
	m->pid = fork();
	if (m->pid == 0) {
		char a[7][320];

		snprintf(a[0], 320, "--datadir=%s/data", m->dir);
		snprintf(a[1], 320, "--socket=%s", sock);
		snprintf(a[2], 320, "--port=%d", port);
		snprintf(a[3], 320, "--pid-file=%s/pid", m->dir);
		snprintf(a[4], 320, "--log-error=%s/err.log", m->dir);
		snprintf(a[5], 320, "--user=%s", getenv("USER") ? getenv("USER") : "root");
		snprintf(a[6], 320, "--tmpdir=%s/tmp", m->dir);
		execlp("mariadbd", "mariadbd", "--no-defaults", a[0], a[1], a[2],
		       a[3], a[4], a[5], a[6], "--bind-address=127.0.0.1",
		       "--skip-log-bin", "--innodb-buffer-pool-size=16M",
		       "--innodb-log-file-size=8M", "--skip-name-resolve",
		       (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 300 && access(sock, F_OK); i++)
		usleep(50000);
	f = fopen("/dev/urandom", "rb");
	if (!f || fread(rnd, 1, sizeof(rnd), f) != sizeof(rnd))
		return -1;
	fclose(f);
	for (int i = 0; i < 32; i++)
		snprintf(pw + 2 * i, 3, "%02x", rnd[i]);
	snprintf(grant, sizeof(grant), "CREATE USER 'beacon'@'127.0.0.1' "
		 "IDENTIFIED BY '%s'", pw);
	setup[0] = "CREATE DATABASE beacon";
	setup[1] = grant;
	setup[2] = "GRANT ALL ON beacon.* TO 'beacon'@'127.0.0.1'";
	setup[3] = NULL;
	if (access(sock, F_OK) || mdb_root(m, setup))
		return -1;
	snprintf(pwfile, sizeof(pwfile), "%s/password", m->dir);
	f = fopen(pwfile, "w");
	if (!f)
		return -1;
	fprintf(f, "%s\n", pw);
	fclose(f);
	chmod(pwfile, 0600);
	snprintf(m->cfg.host, sizeof(m->cfg.host), "127.0.0.1");
	m->cfg.port = (uint64_t)port;
	snprintf(m->cfg.user, sizeof(m->cfg.user), "beacon");
	snprintf(m->cfg.password_file, sizeof(m->cfg.password_file), "%s", pwfile);
	snprintf(m->cfg.database, sizeof(m->cfg.database), "beacon");
	m->cfg.timeout_ms = 10000;
	return 0;
}

static inline void mdb_stop(struct mdb *m)
{
	char cmd[300];

	if (m->pid > 0) {
		kill(m->pid, SIGTERM);
		waitpid(m->pid, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", m->dir);
	if (m->dir[0] && system(cmd)) {
		/* a leftover directory in /tmp is harmless */
	}
}

#endif
