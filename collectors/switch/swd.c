/* beacon-swd: samples InfiniBand port counters each interval, from the
 * sysfs files of this host's adapters (below --root) and from perfquery
 * run against switch ports, and emits one BCN_REC_PORT record of deltas
 * per port (docs/collectors.md). Reading files and running perfquery is
 * the I/O here; parsing is in ibcounters.c. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collectors/switch/ibcounters.h"
#include "collectors/switch/pma.h"
#include "collectors/switch/swd.h"
#include "collectors/switch/swd_topo.h"
#include "common/clock.h"
#include "collectors/runtime/collector.h"
#include "collectors/runtime/counter.h"
#include "common/error.h"
#include "common/log.h"

#define SWD_CLASS_DIR "sys/class/infiniband"
#define SWD_MAX_HCAS 64                 /* adapters read per sample */
#define SWD_MAX_HCA_PORTS 256           /* ports per adapter */
#define SWD_HCA_NAME_MAX 64
#define SWD_COUNTER_FILE_MAX 64         /* bytes of one counter file */
#define SWD_PQ_OUT_MAX (1u << 20)       /* perfquery output per target */
#define SWD_PQ_ARGS 8
#define SWD_PQ_READ 65536               /* bytes asked of one read() */
#define SWD_ENTITY_MAX (BCN_SWD_NAME_MAX + 48)
#define SWD_NO_PMA "N/A"                /* counter files without a PMA */

extern char **environ;

enum swd_source { SWD_SRC_PERFQUERY, SWD_SRC_PMA };

static const char *const swd_sources[] = { "perfquery", "pma", NULL };
static const char *const swd_pma_ext[] = { "auto", "no", NULL };

struct swd_conf {
	bool hca;                       /* read /sys/class/infiniband */
	int source;                     /* enum swd_source */
	char pma_sw[BCN_SWD_MAX_TARGETS][BCN_SWD_TARGET_MAX];
	size_t npma_sw;
	char pma_ca[BCN_PMA_CA_MAX];
	uint64_t pma_port, pma_retries, pma_every, pma_hops, pma_err_every;
	uint64_t pma_window;
	int64_t pma_timeout_ms, pma_budget_ms;
	int pma_ext;                    /* enum bcn_pma_ext */
	char targets[BCN_SWD_MAX_TARGETS][BCN_SWD_TARGET_MAX];
	size_t ntargets;
	char perfquery[BCN_COLLECTOR_PATH_MAX];
	bool extended;
	int64_t pq_timeout_ms;
	uint64_t max_ports;
	uint64_t forget_after;
	char topo_file[BCN_COLLECTOR_PATH_MAX];
	int64_t topo_every_ms;
	struct bcn_collector_conf cc;
};

#define M(f) BCN_CFG_MEMBER(struct swd_conf, f)

static const struct bcn_config_opt swd_options[] = {
	{ "hca_counters", BCN_CFG_BOOL, M(hca), .def = "yes",
	  .help = "Read the port counters of this host's adapters below "
		  "ROOT/sys/class/infiniband." },
	{ "source", BCN_CFG_ENUM, M(source), .words = swd_sources,
	  .def = "perfquery",
	  .help = "How switch ports are read: perfquery (run for each "
		  "perfquery_target every sample) or pma (this daemon queries "
		  "the switches' Performance Management Agents itself)." },
	{ "pma_switch", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct swd_conf, pma_sw, npma_sw), .min = 1,
	  .help = "source pma: switch to sample, repeatable: [NAME=]LID or "
		  "[NAME=]0xGUID (default: every switch discovery finds)." },
	{ "pma_ca", BCN_CFG_STRING, M(pma_ca),
	  .help = "source pma: local adapter to send MADs from, e.g. mlx5_0 "
		  "(default: the first)." },
	{ "pma_port", BCN_CFG_UINT, M(pma_port), .min = 0, .max = 254,
	  .def = "0",
	  .help = "source pma: its port (0: the first active one)." },
	{ "pma_timeout", BCN_CFG_DURATION, M(pma_timeout_ms), .min = 1,
	  .max = 60000, .def = "100ms",
	  .help = "source pma: wait this long for each answer of a switch "
		  "before a retry; a switch that stays silent is left for the "
		  "sample." },
	{ "pma_retries", BCN_CFG_UINT, M(pma_retries), .min = 0, .max = 10,
	  .def = "2",
	  .help = "source pma: retries of an unanswered query." },
	{ "pma_budget", BCN_CFG_DURATION, M(pma_budget_ms), .min = 10,
	  .max = 3600000, .def = "30s",
	  .help = "source pma: time one sample may spend querying; switches "
		  "not reached by then are left out and counted." },
	{ "pma_extended", BCN_CFG_ENUM, M(pma_ext), .words = swd_pma_ext,
	  .def = "auto",
	  .help = "source pma: auto (64-bit PortCountersExtended where the "
		  "switch's ClassPortInfo offers it) or no (32-bit PortCounters "
		  "only)." },
	{ "pma_discover_every", BCN_CFG_UINT, M(pma_every), .min = 1,
	  .max = 1000000, .def = "60",
	  .help = "source pma: walk the fabric again every this many "
		  "samples (switches and linked ports may change)." },
	{ "pma_window", BCN_CFG_UINT, M(pma_window), .min = 1,
	  .max = BCN_PMA_WINDOW_MAX, .def = "16",
	  .help = "source pma: queries outstanding at once to a switch "
		  "(1: one at a time); more saves CPU, too many may overrun "
		  "a switch's management agent (misses)." },
	{ "pma_error_every", BCN_CFG_UINT, M(pma_err_every), .min = 1,
	  .max = 1000, .def = "1",
	  .help = "source pma: read PortCounters (error counters, "
		  "xmit_wait) every this many samples where the switch gives "
		  "the traffic in PortCountersExtended, spread over the "
		  "samples by LID; their deltas then cover the time since the "
		  "last such read (docs/network.md). Below forget_after." },
	{ "pma_max_hops", BCN_CFG_UINT, M(pma_hops), .min = 0, .max = 63,
	  .def = "0",
	  .help = "source pma: hops the discovery walk goes at most (0: 63, "
		  "the longest directed route)." },
	{ "perfquery_target", BCN_CFG_STRING,
	  BCN_CFG_LIST_MEMBER(struct swd_conf, targets, ntargets), .min = 1,
	  .help = "Switch to query with perfquery, repeatable: "
		  "[NAME=]LID[:PORTS] or [NAME=]0xGUID[:PORTS], PORTS N, N,M,... "
		  "or N-M (default: every port)." },
	{ "perfquery", BCN_CFG_PATH, M(perfquery), .min = 1,
	  .def = "perfquery",
	  .help = "The perfquery program (infiniband-diags); without a '/' "
		  "it is looked up in PATH." },
	{ "perfquery_extended", BCN_CFG_BOOL, M(extended), .def = "yes",
	  .help = "Query the 64-bit extended counters (perfquery -x)." },
	{ "perfquery_timeout", BCN_CFG_DURATION, M(pq_timeout_ms), .min = 100,
	  .max = 600000, .def = "5s",
	  .help = "Kill a perfquery that runs longer than this." },
	{ "max_ports", BCN_CFG_UINT, M(max_ports), .min = 1, .max = 1u << 20,
	  .def = "16384",
	  .help = "Ports whose previous counters are remembered, at most." },
	{ "forget_after", BCN_CFG_UINT, M(forget_after), .min = 1,
	  .max = 1000000, .def = "10",
	  .help = "Forget a port missing from this many samples in a row." },
	{ "topology_file", BCN_CFG_PATH, M(topo_file),
	  .help = "The fabric's ibnetdiscover output (topology or -p "
		  "format), sent as topology records at start, when it "
		  "changes and every topology_interval; empty: none." },
	{ "topology_interval", BCN_CFG_DURATION, M(topo_every_ms),
	  .min = 1000, .max = 604800000, .def = "1h",
	  .help = "Resend the topology this often." },
	BCN_COLLECTOR_CONFIG_OPTIONS(struct swd_conf, cc),
	{ .name = NULL }
};

struct swd {
	struct swd_conf *conf;
	struct bcn_swd_target targets[BCN_SWD_MAX_TARGETS];
	struct bcn_counter_table *ports;
	struct bcn_ib_pq_port *pq;      /* BCN_IB_PQ_MAX_PORTS */
	uint8_t hca_kinds[BCN_IB_NVALUES];
	struct bcn_buf out;             /* perfquery's output */
	struct bcn_complain pq_c[BCN_SWD_MAX_TARGETS];  /* per target */
	struct bcn_complain sat_c, full_c;
	uint64_t saturated;
	struct bcn_swd_topo topo;
	struct bcn_pma *pma;            /* source pma */
	struct bcn_swd_target pma_t[BCN_SWD_MAX_TARGETS];
	struct bcn_pma_stats pma_total;
	uint64_t nsample;
	bool pma_found;                 /* a discovery walk succeeded */
	struct bcn_collector *cur_c;    /* of the sample in progress */
	int64_t cur_now;
};

/* snprintf into out[0..len-1]. Returns 0, or -BCN_EFULL when cut. */
__attribute__((format(printf, 3, 4)))
static int fmt(char *out, size_t len, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(out, len, f, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -BCN_EFULL : 0;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

/* NAME= prefix of s, if any, into t->sw; returns what follows it. */
static const char *target_name(const char *s, struct bcn_swd_target *t,
			       int *rc)
{
	const char *eq = strchr(s, '=');
	size_t n;

	*rc = 0;
	if (!eq)
		return s;
	n = (size_t)(eq - s);
	if (n == 0 || n >= sizeof(t->sw)) {
		*rc = -BCN_ESYNTAX;
		return s;
	}
	for (size_t i = 0; i < n; i++)
		if (!name_char(s[i]))
			*rc = -BCN_ESYNTAX;
	memcpy(t->sw, s, n);
	t->sw[n] = '\0';
	return eq + 1;
}

/* The port list after ':' into t->ports: "N", "N,M,..." or "N-M" with
 * N < M, as perfquery reads it (a list and a range do not mix). */
static int target_ports(const char *p, struct bcn_swd_target *t)
{
	uint64_t v = 0, lo = 0;
	int digits = 0, commas = 0, dashes = 0;
	size_t n = strlen(p);

	if (n >= sizeof(t->ports))
		return -BCN_ERANGE;
	for (size_t i = 0; i <= n; i++) {
		if (p[i] >= '0' && p[i] <= '9') {
			v = v * 10 + (uint64_t)(p[i] - '0');
			if (v > 254)
				return -BCN_ERANGE;
			digits++;
			continue;
		}
		if (!digits || (p[i] && p[i] != ',' && p[i] != '-'))
			return -BCN_ESYNTAX;
		if (dashes && !p[i] && v <= lo)
			return -BCN_ERANGE;     /* perfquery wants min < max */
		commas += p[i] == ',';
		dashes += p[i] == '-';
		lo = v;
		v = 0;
		digits = 0;
	}
	if (dashes > 1 || (dashes && commas))
		return -BCN_ESYNTAX;
	memcpy(t->ports, p, n + 1);
	return 0;
}

int bcn_swd_target_parse(const char *s, struct bcn_swd_target *t)
{
	const char *p, *colon;
	uint64_t v = 0;
	size_t n;
	int rc;

	memset(t, 0, sizeof(*t));
	p = target_name(s, t, &rc);
	if (rc)
		return rc;
	colon = strchr(p, ':');
	n = colon ? (size_t)(colon - p) : strlen(p);
	if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		if (n > 18)
			return -BCN_ERANGE;
		for (size_t i = 2; i < n; i++) {
			if (!isxdigit((unsigned char)p[i]))
				return -BCN_ESYNTAX;
			v = v << 4 | (uint64_t)(isdigit((unsigned char)p[i]) ?
				p[i] - '0' : tolower((unsigned char)p[i]) - 'a' + 10);
		}
		t->guid = true;
		snprintf(t->id, sizeof(t->id), "0x%016" PRIx64, v);
	} else {
		if (n == 0 || n > 5)
			return n ? -BCN_ERANGE : -BCN_ESYNTAX;
		for (size_t i = 0; i < n; i++) {
			if (!isdigit((unsigned char)p[i]))
				return -BCN_ESYNTAX;
			v = v * 10 + (uint64_t)(p[i] - '0');
		}
		if (v < 1 || v > 0xbfff)        /* unicast LIDs */
			return -BCN_ERANGE;
		snprintf(t->id, sizeof(t->id), "%" PRIu64, v);
	}
	if (!t->sw[0])
		snprintf(t->sw, sizeof(t->sw), "%s%s", t->guid ? "" : "lid",
			 t->id);
	return colon ? target_ports(colon + 1, t) : 0;
}

/* Logs the saturated counters among cf[0..BCN_IB_NCOUNTERS-1]. */
static void note_saturated(struct swd *s, const char *key, const uint8_t *cf)
{
	for (unsigned i = 0; i < BCN_IB_NCOUNTERS; i++)
		if (cf[i] & BCN_COUNTER_F_SATURATED) {
			s->saturated++;
			bcn_complain(&s->sat_c, BCN_LOG_WARNING, "%s: %s is "
				     "saturated: its deltas are lower bounds "
				     "(clear the counters, e.g. perfquery -R)",
				     key, bcn_ib_counters[i].perfquery);
		}
}

/* Turns the values of one port into a record, if the port was seen
 * before. kinds: the counter kinds; vals/n: the values; ext: the sysfs
 * counters_ext copies are in vals[BCN_IB_NCOUNTERS..]. */
static int emit_port(struct swd *s, struct bcn_collector *c, const char *sw,
		     uint64_t port, const char *key, const uint64_t *vals,
		     const uint8_t *kinds, size_t n, int64_t now)
{
	uint64_t d[BCN_IB_NVALUES];
	uint8_t cf[BCN_IB_NVALUES];
	struct bcn_record r;
	int64_t prev;
	int rc;

	rc = bcn_counter_update(s->ports, key, vals, kinds, n, now, d, cf,
				&prev);
	if (rc == -BCN_EFULL) {
		bcn_complain(&s->full_c, BCN_LOG_WARNING, "more than %" PRIu64
			     " ports: %s not sampled (raise max_ports)",
			     s->conf->max_ports, key);
		return 0;
	}
	if (rc < 0)
		return rc;
	if (rc & BCN_COUNTER_F_FIRST)
		return 0;
	/* the 64-bit copy wins when it moved more (the 32-bit counter is
	 * saturated); a copy the adapter does not keep reads 0 */
	for (size_t i = 0; i + BCN_IB_NCOUNTERS < n && i < BCN_IB_EXT_N; i++)
		if (d[BCN_IB_NCOUNTERS + i] > d[i]) {
			d[i] = d[BCN_IB_NCOUNTERS + i];
			cf[i] = cf[BCN_IB_NCOUNTERS + i];
		}
	note_saturated(s, key, cf);
	bcn_record_init(&r, BCN_REC_PORT);
	r.t = prev;
	r.dur = now - prev;
	r.u.port.sw = sw;
	r.u.port.port = port;
	bcn_ib_fill_record(&r.u.port, d);
	/* failures are counted and logged by the loop; the next port may
	 * fare better, unless memory ran out */
	rc = bcn_collector_add(c, &r);
	return rc == -ENOMEM ? rc : 0;
}

/* Reads one counter file relative to dirfd. Returns 1 with *v, 0 when
 * the counter is absent (no file, or an adapter without a PMA), or a
 * negative code (reported). */
static int read_counter(struct bcn_collector *c, int dirfd, const char *dir,
			const char *name, uint64_t *v)
{
	char buf[SWD_COUNTER_FILE_MAX], path[BCN_COLLECTOR_PATH_MAX];
	ssize_t len;
	int fd, rc;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		goto fail;
	}
	len = read(fd, buf, sizeof(buf));
	rc = len < 0 ? -errno : 0;
	close(fd);
	if (rc)
		goto fail;
	if ((size_t)len >= strlen(SWD_NO_PMA) &&
	    !memcmp(buf, SWD_NO_PMA, strlen(SWD_NO_PMA)))
		return 0;
	rc = bcn_ib_sysfs_parse(buf, (size_t)len, v);
	if (!rc)
		return 1;
	bcn_collector_skipped(c, 1);
fail:
	if (fmt(path, sizeof(path), "%s/%s", dir, name))
		bcn_collector_file_error(c, dir, rc);
	else
		bcn_collector_file_error(c, path, rc);
	return rc;
}

/* Reads the counters of one directory (counters/ or counters_ext/) of a
 * port into vals, setting bits of *present. */
static void read_counter_dir(struct bcn_collector *c, const char *dir,
			     bool ext, uint64_t *vals, uint32_t *present)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0) {
		if (errno != ENOENT)
			bcn_collector_file_error(c, dir, -errno);
		return;
	}
	for (unsigned i = 0; i < BCN_IB_NCOUNTERS; i++) {
		const char *name = ext ? bcn_ib_counters[i].sysfs_ext :
			bcn_ib_counters[i].sysfs;
		unsigned at = ext ? BCN_IB_NCOUNTERS + i : i;

		if (name && read_counter(c, dfd, dir, name, &vals[at]) == 1)
			*present |= 1u << at;
	}
	close(dfd);
}

/* Samples port `port` of adapter hca. */
static int sample_hca_port(struct swd *s, struct bcn_collector *c,
			   const char *hca, unsigned port, int64_t now)
{
	char dir[BCN_COLLECTOR_PATH_MAX], rel[BCN_COLLECTOR_PATH_MAX];
	char key[SWD_ENTITY_MAX];
	uint64_t vals[BCN_IB_NVALUES] = { 0 };
	uint32_t present = 0;
	int rc;

	for (int ext = 0; ext < 2; ext++) {
		rc = fmt(rel, sizeof(rel), SWD_CLASS_DIR "/%s/ports/%u/%s", hca,
			 port, ext ? "counters_ext" : "counters");
		if (!rc)
			rc = bcn_collector_path(c, rel, dir, sizeof(dir));
		if (rc) {
			bcn_collector_file_error(c, rel, rc);
			return 0;
		}
		read_counter_dir(c, dir, ext, vals, &present);
	}
	if (!present)
		return 0;
	/* a counter appearing or vanishing starts the port afresh */
	if (fmt(key, sizeof(key), "%s/%u#%" PRIx32, hca, port, present))
		return 0;               /* names are shorter than keys */
	return emit_port(s, c, hca, port, key, vals, s->hca_kinds,
			 BCN_IB_NVALUES, now);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* The entries of directory path: names (sorted) into names[max][len] if
 * len, or port numbers (sorted) into nums[max]. Returns the count or a
 * negative code. */
static int list_dir(const char *path, char (*names)[SWD_HCA_NAME_MAX],
		    unsigned *nums, size_t max)
{
	DIR *d = opendir(path);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)) && n < max) {
		char *end;
		unsigned long v;

		if (e->d_name[0] == '.')
			continue;
		if (names) {
			size_t len = strlen(e->d_name);

			if (len >= SWD_HCA_NAME_MAX)
				continue;
			memcpy(names[n++], e->d_name, len + 1);
			continue;
		}
		errno = 0;
		v = strtoul(e->d_name, &end, 10);
		if (*end || errno || v > 255)
			continue;
		nums[n++] = (unsigned)v;
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(names[0]), cmp_str);
	else
		qsort(nums, n, sizeof(nums[0]), cmp_uint);
	return (int)n;
}

/* Samples every port of every adapter below ROOT/sys/class/infiniband. */
static int sample_hcas(struct swd *s, struct bcn_collector *c, int64_t now)
{
	static char hcas[SWD_MAX_HCAS][SWD_HCA_NAME_MAX];
	static unsigned ports[SWD_MAX_HCA_PORTS];
	char path[BCN_COLLECTOR_PATH_MAX], rel[BCN_COLLECTOR_PATH_MAX];
	int nh, np, rc;

	rc = bcn_collector_path(c, SWD_CLASS_DIR, path, sizeof(path));
	if (rc)
		return rc;
	nh = list_dir(path, hcas, NULL, SWD_MAX_HCAS);
	if (nh < 0) {
		bcn_collector_file_error(c, path, nh);
		return 0;
	}
	for (int h = 0; h < nh; h++) {
		rc = fmt(rel, sizeof(rel), SWD_CLASS_DIR "/%s/ports", hcas[h]);
		if (!rc)
			rc = bcn_collector_path(c, rel, path, sizeof(path));
		np = rc ? rc : list_dir(path, NULL, ports, SWD_MAX_HCA_PORTS);
		if (np < 0) {
			bcn_collector_file_error(c, path, np);
			continue;
		}
		for (int p = 0; p < np; p++) {
			rc = sample_hca_port(s, c, hcas[h], ports[p], now);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Builds perfquery's argument vector for target t into argv. */
static void pq_argv(const struct swd *s, const struct bcn_swd_target *t,
		    char *argv[SWD_PQ_ARGS])
{
	size_t n = 0;

	argv[n++] = s->conf->perfquery;
	if (s->conf->extended)
		argv[n++] = "-x";
	if (t->guid)
		argv[n++] = "-G";
	if (!t->ports[0])
		argv[n++] = "-l";       /* each port in its own block */
	argv[n++] = (char *)t->id;
	/* port 255 with -l: every port of the node */
	argv[n++] = t->ports[0] ? (char *)t->ports : "255";
	argv[n] = NULL;
}

/* Starts argv with its standard output on a pipe (*fd), standard input
 * and error on /dev/null, default signal handling. Returns 0 or -errno. */
static int pq_spawn(char *const argv[], pid_t *pid, int *fd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int p[2], rc;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	rc = strchr(argv[0], '/') ?
		posix_spawn(pid, argv[0], &fa, &at, argv, environ) :
		posix_spawnp(pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[1]);
	if (rc) {
		close(p[0]);
		return -rc;
	}
	*fd = p[0];
	return 0;
}

/* Reads the child's output into out until EOF or the deadline. Returns
 * 0, -ETIMEDOUT, -BCN_EFULL or -errno. */
static int pq_read(int fd, struct bcn_buf *out, int64_t deadline_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int rc;

	for (;;) {
		int64_t left = deadline_ms - bcn_mono_ms();
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		rc = poll(&pfd, 1, (int)(left > 1000 ? 1000 : left));
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (rc <= 0)
			continue;
		rc = bcn_buf_reserve(out, SWD_PQ_READ);
		if (rc)
			return rc;
		n = read(fd, out->data + out->len, out->cap - out->len);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
		if (n == 0)
			return 0;
		if (n > 0)
			out->len += (size_t)n;
	}
}

/* Runs perfquery for target t into s->out. Returns 0 or a code, after
 * logging what went wrong (rate-limited). */
static int pq_run(struct swd *s, const struct bcn_swd_target *t,
		  struct bcn_complain *cp)
{
	char *argv[SWD_PQ_ARGS];
	int fd = -1, status = 0, rc;
	pid_t pid;

	pq_argv(s, t, argv);
	bcn_buf_reset(&s->out);
	rc = pq_spawn(argv, &pid, &fd);
	if (rc) {
		bcn_complain(cp, BCN_LOG_ERR, "cannot run %s: %s",
			     argv[0], bcn_strerror(rc));
		return rc;
	}
	rc = pq_read(fd, &s->out, bcn_mono_ms() + s->conf->pq_timeout_ms);
	close(fd);
	if (rc)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!rc && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		rc = -EIO;
	if (rc)
		bcn_complain(cp, BCN_LOG_WARNING, "perfquery for %s (%s%s"
			     "%s): %s%s", t->sw, t->id, t->ports[0] ? " " : "",
			     t->ports, rc == -EIO ? "exited with an error" :
			     bcn_strerror(rc), rc == -ETIMEDOUT ? ", killed" : "");
	else
		bcn_complain_release(cp, BCN_LOG_NOTICE, "perfquery for %s "
				     "works again", t->sw);
	return rc;
}

/* Samples the ports of one perfquery target. */
static int sample_target(struct swd *s, struct bcn_collector *c, size_t ti,
			 int64_t now)
{
	const struct bcn_swd_target *t = &s->targets[ti];
	char key[SWD_ENTITY_MAX];
	uint8_t kinds[BCN_IB_NCOUNTERS];
	uint64_t skipped;
	size_t n;
	int rc;

	if (pq_run(s, t, &s->pq_c[ti]))
		return 0;               /* reported; the other targets go on */
	rc = bcn_ib_perfquery_parse((const char *)s->out.data, s->out.len,
				    s->pq, BCN_IB_PQ_MAX_PORTS, &n, &skipped);
	if (skipped)
		bcn_collector_skipped(c, skipped);
	if (rc)
		bcn_complain(&s->pq_c[ti], BCN_LOG_WARNING, "perfquery for %s: "
			     "more than %d ports, the rest ignored", t->sw,
			     BCN_IB_PQ_MAX_PORTS);
	for (size_t i = 0; i < n; i++) {
		const struct bcn_ib_pq_port *pp = &s->pq[i];

		if (!pp->present)
			continue;
		for (unsigned k = 0; k < BCN_IB_NCOUNTERS; k++)
			kinds[k] = bcn_ib_perfquery_kind(k, pp->extended);
		if (fmt(key, sizeof(key), "%s/%" PRIu64 "#%c%" PRIx32, t->sw,
			pp->port, pp->extended ? 'x' : 'r', pp->present))
			continue;       /* names are shorter than keys */
		rc = emit_port(s, c, t->sw, pp->port, key, pp->v, kinds,
			       BCN_IB_NCOUNTERS, now);
		if (rc)
			return rc;
	}
	return 0;
}

/* A switch port whose traffic comes from PortCountersExtended: the four
 * 64-bit counters are entity "SW/PORT#x", the PortCounters ones (read
 * when pc) entity "SW/PORT#e", so their deltas cover the time since
 * their own last read. The record's interval is the traffic's; its
 * xmit_wait and errors are 0 unless pc (and a previous read) gives them. */
static int emit_pma_ext(struct swd *s, const char *sw, unsigned port,
			const uint64_t v[BCN_IB_NCOUNTERS], bool pc)
{
	char key[SWD_ENTITY_MAX], ekey[SWD_ENTITY_MAX];
	uint64_t d[BCN_IB_NCOUNTERS] = { 0 };
	uint8_t kinds[BCN_IB_NCOUNTERS], cf[BCN_IB_NCOUNTERS] = { 0 };
	struct bcn_record r;
	int64_t prev;
	int rc, erc = BCN_COUNTER_F_FIRST;

	for (unsigned k = 0; k < BCN_IB_NCOUNTERS; k++)
		kinds[k] = bcn_ib_perfquery_kind(k, k < BCN_IB_EXT_N);
	if (fmt(key, sizeof(key), "%s/%u#x", sw, port) ||
	    fmt(ekey, sizeof(ekey), "%s/%u#e", sw, port))
		return 0;               /* names are shorter than keys */
	if (pc) {
		erc = bcn_counter_update(s->ports, ekey, v + BCN_IB_EXT_N,
					 kinds + BCN_IB_EXT_N,
					 BCN_IB_NCOUNTERS - BCN_IB_EXT_N,
					 s->cur_now, d + BCN_IB_EXT_N,
					 cf + BCN_IB_EXT_N, NULL);
		if (erc < 0 && erc != -BCN_EFULL)
			return erc;
	}
	rc = bcn_counter_update(s->ports, key, v, kinds, BCN_IB_EXT_N,
				s->cur_now, d, cf, &prev);
	if (rc == -BCN_EFULL || erc == -BCN_EFULL)
		bcn_complain(&s->full_c, BCN_LOG_WARNING, "more than %" PRIu64
			     " ports: %s not sampled (raise max_ports)",
			     s->conf->max_ports, key);
	if (rc < 0)
		return rc == -BCN_EFULL ? 0 : rc;
	if (rc & BCN_COUNTER_F_FIRST)
		return 0;
	if (erc < 0 || (erc & BCN_COUNTER_F_FIRST))
		memset(d + BCN_IB_EXT_N, 0, sizeof(d) - sizeof(d[0]) *
		       BCN_IB_EXT_N);
	note_saturated(s, key, cf);
	bcn_record_init(&r, BCN_REC_PORT);
	r.t = prev;
	r.dur = s->cur_now - prev;
	r.u.port.sw = sw;
	r.u.port.port = port;
	bcn_ib_fill_record(&r.u.port, d);
	rc = bcn_collector_add(s->cur_c, &r);
	return rc == -ENOMEM ? rc : 0;
}

/* bcn_pma_port_fn: one switch port read through its PMA. */
static int pma_port_cb(void *arg, const char *sw, unsigned port,
		       const uint64_t v[BCN_IB_NCOUNTERS], bool ext, bool pc)
{
	struct swd *s = arg;
	char key[SWD_ENTITY_MAX];
	uint8_t kinds[BCN_IB_NCOUNTERS];

	if (ext)
		return emit_pma_ext(s, sw, port, v, pc);
	/* PortCounters alone: every counter saturates at its width */
	for (unsigned k = 0; k < BCN_IB_NCOUNTERS; k++)
		kinds[k] = bcn_ib_perfquery_kind(k, false);
	if (fmt(key, sizeof(key), "%s/%u#r", sw, port))
		return 0;               /* names are shorter than keys */
	return emit_port(s, s->cur_c, sw, port, key, v, kinds,
			 BCN_IB_NCOUNTERS, s->cur_now);
}

/* Samples the switches through their PMAs, walking the fabric first
 * when due. */
static int sample_pma(struct swd *s, struct bcn_collector *c, int64_t now)
{
	struct bcn_pma_stats st;
	int rc;

	if (!s->pma_found || s->nsample % s->conf->pma_every == 0) {
		rc = bcn_pma_discover(s->pma);
		if (rc == -ENOMEM)
			return rc;
		s->pma_found |= !rc;
	}
	s->cur_c = c;
	s->cur_now = now;
	rc = bcn_pma_sample(s->pma, pma_port_cb, s, &st);
	s->pma_total.switches += st.switches;
	s->pma_total.ports += st.ports;
	s->pma_total.misses += st.misses;
	s->pma_total.over_budget += st.over_budget;
	s->pma_total.bad += st.bad;
	BCN_DEBUG("pma: %" PRIu64 " switches, %" PRIu64 " ports, %" PRIu64
		  " missed, %" PRIu64 " over budget", st.switches, st.ports,
		  st.misses, st.over_budget);
	return rc;
}

static int swd_sample(void *arg, struct bcn_collector *c, int64_t t,
		      int64_t dur)
{
	struct swd *s = arg;
	int64_t now = t + dur;
	int rc = 0;

	if (s->conf->hca)
		rc = sample_hcas(s, c, now);
	for (size_t i = 0; !rc && i < s->conf->ntargets; i++)
		rc = sample_target(s, c, i, now);
	if (!rc && s->pma)
		rc = sample_pma(s, c, now);
	s->nsample++;
	bcn_counter_sweep(s->ports);
	rc = rc ? rc : bcn_swd_topo_sample(&s->topo, c, now);
	return rc;
}

/* Parses pma_switch entries and opens the local port for source pma. */
static int pma_init(struct swd *s)
{
	const struct swd_conf *cf = s->conf;
	struct bcn_pma_conf pc = {
		.ca = cf->pma_ca, .port = (int)cf->pma_port,
		.timeout_ms = (int)cf->pma_timeout_ms,
		.retries = (int)cf->pma_retries,
		.budget_ms = cf->pma_budget_ms,
		.ext = cf->pma_ext == 1 ? BCN_PMA_EXT_NO : BCN_PMA_EXT_AUTO,
		.max_hops = (unsigned)cf->pma_hops,
		.error_every = (unsigned)cf->pma_err_every,
		.window = (unsigned)cf->pma_window,
		.only = s->pma_t, .nonly = cf->npma_sw,
	};
	int rc;

	if (cf->ntargets) {
		BCN_ERR("perfquery_target is set but source is pma: use "
			"pma_switch");
		return -EINVAL;
	}
	if (cf->pma_err_every > 1 && cf->pma_err_every >= cf->forget_after) {
		BCN_ERR("pma_error_every (%" PRIu64 ") must be below "
			"forget_after (%" PRIu64 "): the error counters would "
			"be forgotten between reads", cf->pma_err_every,
			cf->forget_after);
		return -EINVAL;
	}
	for (size_t i = 0; i < cf->npma_sw; i++) {
		rc = bcn_swd_target_parse(cf->pma_sw[i], &s->pma_t[i]);
		if (!rc && s->pma_t[i].ports[0])
			rc = -BCN_ESYNTAX;      /* every linked port is read */
		if (rc) {
			BCN_ERR("pma_switch '%s': expected [NAME=]LID or "
				"[NAME=]0xGUID", cf->pma_sw[i]);
			return rc;
		}
	}
	return bcn_pma_open(&pc, &s->pma);
}

static int swd_init(void *arg, struct bcn_collector *c)
{
	struct swd *s = arg;
	int rc;

	(void)c;
	for (unsigned i = 0; i < BCN_IB_NVALUES; i++)
		s->hca_kinds[i] = bcn_ib_sysfs_kind(i);
	for (size_t i = 0; i < s->conf->ntargets; i++) {
		rc = bcn_swd_target_parse(s->conf->targets[i], &s->targets[i]);
		if (rc) {
			BCN_ERR("perfquery_target '%s': expected "
				"[NAME=]LID[:PORTS] or [NAME=]0xGUID[:PORTS]",
				s->conf->targets[i]);
			return rc;
		}
	}
	s->topo.path = s->conf->topo_file;
	s->topo.every_ns = s->conf->topo_every_ms * 1000000;
	if (s->conf->source == SWD_SRC_PMA) {
		rc = pma_init(s);
		if (rc)
			return rc;
	} else if (s->conf->npma_sw) {
		BCN_ERR("pma_switch is set but source is not pma");
		return -EINVAL;
	} else if (!s->conf->hca && !s->conf->ntargets &&
		   !s->conf->topo_file[0]) {
		BCN_ERR("nothing to sample: hca_counters is off and no "
			"perfquery_target or topology_file is set");
		return -EINVAL;
	}
	rc = bcn_counter_table_new("ports", s->conf->max_ports,
				   (unsigned)s->conf->forget_after, &s->ports);
	if (rc)
		return rc;
	bcn_buf_init(&s->out, SWD_PQ_OUT_MAX);
	if (s->conf->ntargets) {
		s->pq = calloc(BCN_IB_PQ_MAX_PORTS, sizeof(*s->pq));
		if (!s->pq)
			return -ENOMEM;
	}
	return 0;
}

static void swd_fini(void *arg)
{
	struct swd *s = arg;
	struct bcn_counter_stats st;

	if (s->ports) {
		bcn_counter_table_stats(s->ports, &st);
		BCN_INFO("ports: %" PRIu64 " remembered, %" PRIu64 " resets, %"
			 PRIu64 " wraps, %" PRIu64 " saturated, %" PRIu64
			 " dropped, %" PRIu64 " forgotten", st.entities,
			 st.resets, st.wraps, s->saturated, st.dropped,
			 st.forgotten);
	}
	if (s->pma)
		BCN_INFO("pma: %" PRIu64 " switch samples, %" PRIu64 " port "
			 "reads, %" PRIu64 " switches missed, %" PRIu64 " left "
			 "out over budget, %" PRIu64 " bad answers",
			 s->pma_total.switches, s->pma_total.ports,
			 s->pma_total.misses, s->pma_total.over_budget,
			 s->pma_total.bad);
	bcn_pma_close(s->pma);
	s->pma = NULL;
	bcn_counter_table_free(s->ports);
	s->ports = NULL;
	free(s->pq);
	s->pq = NULL;
	bcn_buf_free(&s->out);
	bcn_swd_topo_free(&s->topo);
}

static const struct bcn_collector_ops swd_ops = {
	.init = swd_init, .sample = swd_sample, .fini = swd_fini,
};

static struct swd_conf swd_cfg;
static struct swd swd_state = { .conf = &swd_cfg };

const struct bcn_program bcn_swd_program = BCN_COLLECTOR_PROGRAM(
	"beacon-swd",
	"Samples InfiniBand port counters (this host's adapters in sysfs, "
	"switch ports through perfquery or the switches' PMAs) and sends "
	"their per-interval deltas.",
	swd_options, &swd_cfg, &swd_cfg.cc, &swd_ops, &swd_state);
