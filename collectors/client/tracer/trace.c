/* The tracer's core (trace.h, docs/tracer.md): settings from the
 * environment, the process-wide descriptor table, one compressor and one
 * datagram buffer per thread, and delivery to beacon-clientd.
 *
 * Concurrency: the descriptor table is lock-free (atomic fields); each
 * thread owns its state and claims it with one compare-and-swap per
 * operation, which also keeps a signal handler that does I/O from
 * re-entering the thread's compressor (its calls pass untraced and are
 * counted). No lock is shared between threads. At exit, exec and thread
 * end the runs still open are sent; after fork the child forgets what
 * its parent will send. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "proto/fileid.h"
#include "collectors/client/tracer/tclock.h"
#include "collectors/client/tracer/tmsg.h"
#include "collectors/client/tracer/trace.h"
#include "proto/record.h"
#include "compress/iorun.h"

#define TRACE_PATH_MAX 4096
#define EXIT_WAIT_MS_DEF 2000           /* BEACON_TRACE_EXIT_WAIT_MS */
#define EXIT_WAIT_MS_MAX 60000
#define SOCK_FD_MIN 512                 /* our socket moves above this */
#define TCLOCK_ANCHOR_NS 1000000000LL   /* a thread's clock anchored anew */
#define ANCHOR_TRIES 3                  /* readings an anchor is the best of */
#define SLURM_BATCH_STEP 0xfffffffbull  /* BCN_PROCJOB_STEP_BATCH */

enum { ST_NEW, ST_STARTING, ST_ON, ST_OFF };
/* A descriptor's state. FD_OPENED and FD_OPENED_APPEND: opened by the
 * program through the tracer and taken for a file without a system call;
 * its type (and, with O_APPEND, its size as the position) is read at its
 * first use (bcn_trace_fd_traced). */
enum { FD_UNKNOWN, FD_FILE, FD_OTHER, FD_OPENED, FD_OPENED_APPEND };

struct fd_entry {
	_Atomic uint64_t file;
	_Atomic uint64_t pos;
	_Atomic uint32_t state;
	uint32_t pad;
};

/* One datagram being filled or waiting to be sent. */
struct dgram {
	size_t len;                     /* bytes, header included */
	uint32_t nrec;
	uint64_t ops;                   /* operations the records stand for */
	uint64_t seq;                   /* 0 until a first send attempt */
};

struct thr {
	_Atomic int busy;               /* claimed by its thread or exit */
	_Atomic int dead;               /* free for a new thread */
	struct thr *next;               /* all states ever made */
	uint64_t tid;
	int64_t last_flush;
	/* datagrams: a circular queue of nq sealed ones from head, then
	 * the one being filled; a full queue drops its oldest */
	struct dgram dg[BCN_TRACE_QUEUE];
	unsigned head, nq;
	struct bcn_iorun_ctx x;
	struct bcn_tclock clk;          /* this thread's clock (tclock.h) */
	char path[TRACE_PATH_MAX];      /* scratch for path resolution */
	/* the working directory as last read (getcwd), while g.cwd_gen
	 * stays cwd_gen */
	uint64_t cwd_gen;
	size_t cwd_len;
	char cwd[TRACE_PATH_MAX];
	uint8_t buf[BCN_TRACE_QUEUE][BCN_TMSG_MAX];
};

static struct {
	_Atomic int state;
	_Atomic int sock;
	_Atomic int bsock;              /* blocking, for the end of a stream */
	int64_t exit_wait_ns;
	struct sockaddr_un addr;
	socklen_t addrlen;
	int64_t flush_ns;
	enum bcn_iorun_mode mode;
	unsigned slots;
	uint64_t job, step;
	int64_t rank;
	uint32_t hflags;
	bool tsc;                       /* time from the counter (tclock.h) */
	_Atomic uint64_t pid, seq, dropped, untraced;
	_Atomic uint64_t cwd_gen;       /* changes with chdir, fchdir */
	struct fd_entry *fds;
	_Atomic(struct thr *) threads;
	pthread_key_t key;
	int have_key;
} g = { .sock = -1, .bsock = -1, .rank = -1, .cwd_gen = 1 };

static __thread struct thr *tls_thr __attribute__((tls_model("initial-exec")));

bool bcn_trace_resolve(void **slot, const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (p)
		*slot = p;
	return p != NULL;
}

static int64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t counter(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	return 0;
#endif
}

int64_t bcn_trace_now(void)
{
	struct thr *t = tls_thr;
	int64_t ns;

	if (g.tsc && t && bcn_tclock_ready(&t->clk) &&
	    bcn_tclock_at(&t->clk, counter(), &ns))
		return ns;
	return clock_ns();
}

/* A new anchor for t's clock: the counter read on both sides of the
 * clock, its middle taken, from the closest of ANCHOR_TRIES such readings
 * (an interrupt or a preemption between two readings would misplace the
 * anchor by its length: over the first calibration intervals, a
 * hundredth of a second, a microsecond is 100 ppm). */
static void clock_anchor(struct thr *t)
{
	uint64_t a, b, at = 0, gap = UINT64_MAX;
	int64_t ns, at_ns = 0;

	for (int i = 0; i < ANCHOR_TRIES; i++) {
		a = counter();
		ns = clock_ns();
		b = counter();
		if (b >= a && b - a < gap) {
			gap = b - a;
			at = a + (b - a) / 2;
			at_ns = ns;
		}
	}
	if (gap != UINT64_MAX)
		bcn_tclock_anchor(&t->clk, at, at_ns);
}

/* Whether the kernel keeps time with the counter (its clock source),
 * unless BEACON_TRACE_TSC=0 says not to use it. */
static bool counter_usable(void)
{
	static const char cs[] =
		"/sys/devices/system/clocksource/clocksource0/"
		"current_clocksource";
	const char *e = getenv("BEACON_TRACE_TSC");
	char buf[32];
	long n = -1;
	int fd;

	if (e && !strcmp(e, "0"))
		return false;
	fd = (int)syscall(SYS_openat, AT_FDCWD, cs, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = syscall(SYS_read, fd, buf, sizeof(buf));
		syscall(SYS_close, fd);
	}
	return n > 0 && bcn_tclock_usable(buf, n);
}

static uint64_t env_u64(const char *name, uint64_t def, bool *set)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long x;

	if (!v || !*v)
		return def;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end)
		return def;
	if (set)
		*set = true;
	return x;
}

static void setup_job(void)
{
	static const char *const ranks[] = { "SLURM_PROCID", "PMI_RANK",
		"OMPI_COMM_WORLD_RANK", "PMIX_RANK" };
	bool have = false, have_step = false;
	size_t i;

	g.job = env_u64("SLURM_JOB_ID", 0, &have);
	if (!have)
		g.job = env_u64("SLURM_JOBID", 0, &have);
	g.step = env_u64("SLURM_STEP_ID", 0, &have_step);
	if (!have_step)
		g.step = env_u64("SLURM_STEPID", 0, &have_step);
	if (have && !have_step)
		g.step = SLURM_BATCH_STEP;
	if (have)
		g.hflags |= BCN_TMSG_F_ENV_JOB;
	for (i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
		bool r = false;
		uint64_t v = env_u64(ranks[i], 0, &r);

		if (r && v <= INT64_MAX) {
			g.rank = (int64_t)v;
			break;
		}
	}
}

static void setup_socket_addr(void)
{
	const char *s = getenv("BEACON_TRACE_SOCKET");
	size_t n;

	if (!s || !*s)
		s = BCN_TRACE_SOCKET_DEF;
	n = strlen(s);
	if (n >= sizeof(g.addr.sun_path))
		n = sizeof(g.addr.sun_path) - 1;
	g.addr.sun_family = AF_UNIX;
	memcpy(g.addr.sun_path, s, n);
	if (s[0] == '@')
		g.addr.sun_path[0] = '\0';      /* abstract: no file at all */
	g.addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
				(s[0] == '@' ? 0 : 1));
}

static void thr_destroy(void *arg);
static void after_fork_child(void);
static void send_mark(uint32_t flags, int64_t deadline);

static bool disabled_by_env(void)
{
	const char *d = getenv("BEACON_TRACE_DISABLE");
	extern char *program_invocation_short_name;

	if (d && *d && strcmp(d, "0"))
		return true;
	/* the daemon must not trace itself into its own socket */
	return strcmp(program_invocation_short_name, "beacon-clientd") == 0;
}

static void init(void)
{
	int expect = ST_NEW;
	const char *mode;
	void *p;

	if (!atomic_compare_exchange_strong(&g.state, &expect, ST_STARTING))
		return;
	if (disabled_by_env())
		goto off;
	p = mmap(NULL, sizeof(struct fd_entry) * BCN_TRACE_FDS,
		 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		goto off;
	g.fds = p;
	g.flush_ns = (int64_t)env_u64("BEACON_TRACE_FLUSH_MS",
				      BCN_TRACE_FLUSH_MS_DEF, NULL) * 1000000;
	g.slots = (unsigned)env_u64("BEACON_TRACE_SLOTS", 8, NULL);
	g.exit_wait_ns = (int64_t)env_u64("BEACON_TRACE_EXIT_WAIT_MS",
					  EXIT_WAIT_MS_DEF, NULL);
	if (g.exit_wait_ns > EXIT_WAIT_MS_MAX)
		g.exit_wait_ns = EXIT_WAIT_MS_MAX;
	g.exit_wait_ns *= 1000000;
	mode = getenv("BEACON_TRACE_MODE");
	g.mode = mode && !strcmp(mode, "contig") ? BCN_IORUN_CONTIG :
		 BCN_IORUN_STRIDED;
	setup_socket_addr();
	setup_job();
	g.tsc = counter_usable();
	if (pthread_key_create(&g.key, thr_destroy) == 0)
		g.have_key = 1;
	pthread_atfork(NULL, NULL, after_fork_child);
	atomic_store(&g.pid, (uint64_t)getpid());
	atomic_store(&g.state, ST_ON);
	send_mark(0, bcn_trace_now() + g.exit_wait_ns);
	return;
off:
	atomic_store(&g.state, ST_OFF);
}

bool bcn_trace_on(void)
{
	int s = atomic_load_explicit(&g.state, memory_order_acquire);

	if (s == ST_ON)
		return true;
	if (s == ST_NEW) {
		init();
		return atomic_load(&g.state) == ST_ON;
	}
	return false;
}

__attribute__((constructor)) static void trace_start(void)
{
	bcn_trace_on();
}

/* ---- delivery ---------------------------------------------------------- */

static int get_sock(void)
{
	int s = atomic_load(&g.sock), h, expect = -1;
	struct rlimit rl;

	if (s >= 0)
		return s;
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return -1;
	/* out of the way of programs that use low numbers themselves */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > SOCK_FD_MIN * 2) {
		h = fcntl(s, F_DUPFD_CLOEXEC, SOCK_FD_MIN);
		if (h >= 0) {
			syscall(SYS_close, s);
			s = h;
		}
	}
	if (s < BCN_TRACE_FDS)
		atomic_store(&g.fds[s].state, FD_OTHER);
	if (!atomic_compare_exchange_strong(&g.sock, &expect, s)) {
		syscall(SYS_close, s);
		s = expect;
	}
	return s;
}

static struct dgram *cur(struct thr *t, uint8_t **buf)
{
	unsigned i = (t->head + t->nq) % BCN_TRACE_QUEUE;

	*buf = t->buf[i];
	return &t->dg[i];
}

static void dg_reset(struct dgram *d)
{
	d->len = BCN_TMSG_HDR_LEN;
	d->nrec = 0;
	d->ops = 0;
	d->seq = 0;
}

/* The socket for sends that may wait: blocking, so that the kernel
 * holds a send while the daemon's queue is full, for at most the send
 * timeout set before each use. Only the end of a stream uses it. */
static int get_bsock(void)
{
	int s = atomic_load(&g.bsock), expect = -1;

	if (s >= 0)
		return s;
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	if (s < BCN_TRACE_FDS)
		atomic_store(&g.fds[s].state, FD_OTHER);
	if (!atomic_compare_exchange_strong(&g.bsock, &expect, s)) {
		syscall(SYS_close, s);
		s = expect;
	}
	return s;
}

/* Sends len bytes of buf, waiting until deadline (0: not at all) while
 * the daemon's socket is full. Returns 0 (sent), -EAGAIN (still full:
 * try again later) or another error (it cannot be sent). */
static int send_buf(const uint8_t *buf, size_t len, int64_t deadline)
{
	struct timeval tv;
	int64_t left;
	int s;

	for (int again = 0; again < 2; again++) {
		s = get_sock();
		if (s < 0)
			return -EBADF;
		if (sendto(s, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL,
			   (struct sockaddr *)&g.addr, g.addrlen) >= 0)
			return 0;
		if (errno == EAGAIN || errno == ENOBUFS || errno == EINTR)
			break;
		if (errno != EBADF && errno != ENOTSOCK)
			return -errno;
		/* the program closed our socket: a new one */
		atomic_compare_exchange_strong(&g.sock, &s, -1);
	}
	while (deadline && (left = deadline - bcn_trace_now()) > 0) {
		s = get_bsock();
		if (s < 0)
			return -EAGAIN;
		tv.tv_sec = left / 1000000000;
		tv.tv_usec = (left % 1000000000) / 1000 + 1;
		if (setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
			return -EAGAIN;
		if (sendto(s, buf, len, MSG_NOSIGNAL,
			   (struct sockaddr *)&g.addr, g.addrlen) >= 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != ENOBUFS && errno != EINTR)
			return -errno;
	}
	return -EAGAIN;
}

/* Sends one datagram of t; see send_buf. */
static int send_one(struct thr *t, struct dgram *d, uint8_t *buf, bool final,
		    int64_t deadline)
{
	struct bcn_tmsg_hdr h = { 0 };

	h.flags = g.hflags | (final ? BCN_TMSG_F_LAST : 0);
	h.nrec = d->nrec;
	h.job = g.job;
	h.step = g.step;
	h.rank = g.rank;
	h.pid = atomic_load(&g.pid);
	h.tid = t->tid;
	if (!d->seq)
		d->seq = atomic_fetch_add(&g.seq, 1) + 1;
	h.seq = d->seq;
	h.dropped_ops = atomic_load(&g.dropped);
	h.untraced = atomic_load(&g.untraced);
	bcn_tmsg_put_hdr(buf, &h);
	return send_buf(buf, d->len, deadline);
}

/* Sends the sealed datagrams, oldest first, until the socket is full
 * (after deadline, when one is given). Unsendable ones are counted as
 * dropped. */
static void send_queue(struct thr *t, bool final, int64_t deadline)
{
	struct dgram *d;
	int rc;

	while (t->nq) {
		d = &t->dg[t->head];
		rc = send_one(t, d, t->buf[t->head], final, deadline);
		if (rc == -EAGAIN)
			return;
		if (rc)
			atomic_fetch_add(&g.dropped, d->ops);
		t->head = (t->head + 1) % BCN_TRACE_QUEUE;
		t->nq--;
	}
}

/* Seals the datagram being filled (if it has records) and starts a new
 * one, dropping the oldest sealed one when the queue is full. The sealed
 * ones go, as far as the socket takes them, when there are
 * BCN_TRACE_SEND_BATCH of them or when now is set (a flush, the end).
 * With nothing left queued the new datagram is the first buffer again, so
 * that the others stay untouched (and out of resident memory) unless the
 * thread does enough I/O to fill a batch or the daemon falls behind. */
static void seal(struct thr *t, bool now, bool final, int64_t deadline)
{
	uint8_t *buf;
	struct dgram *d = cur(t, &buf);

	if (d->nrec)
		t->nq++;
	if (now || t->nq >= BCN_TRACE_SEND_BATCH)
		send_queue(t, final, deadline);
	if (t->nq == BCN_TRACE_QUEUE) {
		atomic_fetch_add(&g.dropped, t->dg[t->head].ops);
		t->head = (t->head + 1) % BCN_TRACE_QUEUE;
		t->nq--;
	}
	if (!t->nq)
		t->head = 0;
	if (d->nrec || !t->nq)
		dg_reset(cur(t, &buf));
}

/* Counts what is still queued as dropped and empties the queue: the
 * thread or the process image ends and nothing will send it. */
static void drop_queued(struct thr *t)
{
	uint8_t *buf;

	while (t->nq) {
		atomic_fetch_add(&g.dropped, t->dg[t->head].ops);
		t->head = (t->head + 1) % BCN_TRACE_QUEUE;
		t->nq--;
	}
	t->head = 0;
	dg_reset(cur(t, &buf));
}

static void put_rec(struct thr *t, const struct bcn_iorun *run,
		    const char *path, size_t plen)
{
	size_t n = bcn_tmsg_rec_size(run, plen);
	uint8_t *buf;
	struct dgram *d = cur(t, &buf);

	if (d->len + n > BCN_TMSG_MAX) {
		seal(t, false, false, 0);
		d = cur(t, &buf);
	}
	d->len += bcn_tmsg_put_rec(buf + d->len, run, path, plen);
	d->nrec++;
	d->ops += run->count;
}

static void emit_run(void *arg, const struct bcn_iorun *run)
{
	put_rec(arg, run, NULL, 0);
}

/* ---- thread states ------------------------------------------------------ */

static void thr_setup(struct thr *t)
{
	t->tid = (uint64_t)syscall(SYS_gettid);
	memset(&t->clk, 0, sizeof(t->clk));
	if (g.tsc)
		clock_anchor(t);
	t->last_flush = clock_ns();
	bcn_iorun_init(&t->x, g.mode, g.slots, 0, emit_run, t);
	t->cwd_gen = 0;
	t->head = 0;
	t->nq = 0;
	dg_reset(&t->dg[0]);
}

static struct thr *thr_new(void)
{
	struct thr *t, *head;
	int one = 1;
	void *p;

	for (t = atomic_load(&g.threads); t; t = t->next) {
		one = 1;
		if (atomic_load(&t->dead) &&
		    atomic_compare_exchange_strong(&t->dead, &one, 0)) {
			thr_setup(t);
			return t;
		}
	}
	p = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	t = p;
	thr_setup(t);
	head = atomic_load(&g.threads);
	do {
		t->next = head;
	} while (!atomic_compare_exchange_weak(&g.threads, &head, t));
	return t;
}

/* Claims this thread's state, or NULL (counted) when it is in use: a
 * signal handler interrupted the thread inside the tracer, or exit. */
static struct thr *thr_get(void)
{
	struct thr *t = tls_thr;
	int zero = 0;

	if (!t) {
		t = thr_new();
		if (!t) {
			atomic_fetch_add(&g.untraced, 1);
			return NULL;
		}
		tls_thr = t;
		if (g.have_key)
			pthread_setspecific(g.key, t);
	}
	if (!atomic_compare_exchange_strong_explicit(&t->busy, &zero, 1,
						     memory_order_acquire,
						     memory_order_relaxed)) {
		atomic_fetch_add(&g.untraced, 1);
		return NULL;
	}
	return t;
}

static void thr_put(struct thr *t)
{
	atomic_store_explicit(&t->busy, 0, memory_order_release);
}

/* Sends all of t's runs, waiting until deadline while the socket is
 * full; what still cannot go is counted as dropped. */
static void thr_flush_end(struct thr *t, bool final, int64_t deadline)
{
	bcn_iorun_flush(&t->x);
	seal(t, true, final, deadline);
	send_queue(t, final, deadline);
	drop_queued(t);
}

static void maybe_flush(struct thr *t, int64_t now)
{
	if (g.tsc && bcn_tclock_due(&t->clk, now, TCLOCK_ANCHOR_NS))
		clock_anchor(t);
	if (now - t->last_flush >= g.flush_ns) {
		t->last_flush = now;
		bcn_iorun_flush(&t->x);
		seal(t, true, false, 0);
	}
}

/* pthread key destructor: the thread ends. */
static void thr_destroy(void *arg)
{
	struct thr *t = arg;
	int zero = 0;

	if (tls_thr == t)
		tls_thr = NULL;
	if (!atomic_compare_exchange_strong(&t->busy, &zero, 1))
		return;
	/* nothing sends a dead state's queue: wait for the socket */
	thr_flush_end(t, false, bcn_trace_now() + g.exit_wait_ns);
	atomic_store(&t->dead, 1);
	thr_put(t);
}

static void after_fork_child(void)
{
	struct thr *t;

	atomic_store(&g.pid, (uint64_t)getpid());
	atomic_store(&g.seq, 0);
	atomic_store(&g.dropped, 0);
	atomic_store(&g.untraced, 0);
	for (t = atomic_load(&g.threads); t; t = t->next) {
		bcn_iorun_reset(&t->x);
		t->head = 0;
		t->nq = 0;
		dg_reset(&t->dg[0]);
		if (t != tls_thr)
			atomic_store(&t->dead, 1);
		else
			t->tid = (uint64_t)syscall(SYS_gettid);
		atomic_store(&t->busy, 0);
	}
	if (atomic_load(&g.state) == ST_ON)
		send_mark(0, bcn_trace_now() + g.exit_wait_ns);
}

/* Claims t for the end of the stream, waiting until deadline while
 * another thread holds it; false if it cannot (this thread holds it: a
 * signal handler interrupted the tracer and exits). */
static bool claim_for_end(struct thr *t, int64_t deadline)
{
	int zero = 0;

	while (!atomic_compare_exchange_strong(&t->busy, &zero, 1)) {
		zero = 0;
		if (t == tls_thr || bcn_trace_now() >= deadline)
			return false;
		sched_yield();
	}
	return true;
}

/* A datagram without records: the start of a stream (the daemon knows
 * of the process from then on, so that a stream whose end never comes
 * is found) or its end (the stream's last sequence number). */
static void send_mark(uint32_t flags, int64_t deadline)
{
	uint8_t buf[BCN_TMSG_HDR_LEN];
	struct bcn_tmsg_hdr h = { 0 };

	h.flags = g.hflags | flags;
	h.job = g.job;
	h.step = g.step;
	h.rank = g.rank;
	h.pid = atomic_load(&g.pid);
	h.tid = (uint64_t)syscall(SYS_gettid);
	h.seq = atomic_fetch_add(&g.seq, 1) + 1;
	h.dropped_ops = atomic_load(&g.dropped);
	h.untraced = atomic_load(&g.untraced);
	bcn_tmsg_put_hdr(buf, &h);
	(void)send_buf(buf, sizeof(buf), deadline);
}

void bcn_trace_flush_all(bool final)
{
	int64_t deadline;
	bool partial = false;
	struct thr *t;

	if (atomic_load(&g.state) != ST_ON)
		return;
	/* a vfork child (no atfork handlers ran) shares its parent's memory:
	 * its exec or _exit must leave the parent's state alone */
	if ((uint64_t)syscall(SYS_getpid) != atomic_load(&g.pid))
		return;
	if (final)
		atomic_store(&g.state, ST_OFF);
	deadline = bcn_trace_now() + g.exit_wait_ns;
	for (t = atomic_load(&g.threads); t; t = t->next) {
		if (atomic_load(&t->dead))
			continue;
		if (!claim_for_end(t, deadline)) {
			partial = true;
			continue;
		}
		thr_flush_end(t, final, deadline);
		thr_put(t);
	}
	send_mark(BCN_TMSG_F_LAST | BCN_TMSG_F_END |
		  (partial ? BCN_TMSG_F_PARTIAL : 0), deadline);
}

void bcn_trace_exec_failed(void)
{
	if (atomic_load(&g.state) != ST_ON ||
	    (uint64_t)syscall(SYS_getpid) != atomic_load(&g.pid))
		return;
	atomic_store(&g.seq, 0);
	atomic_store(&g.dropped, 0);
	atomic_store(&g.untraced, 0);
	send_mark(0, bcn_trace_now() + g.exit_wait_ns);
}

__attribute__((destructor)) static void trace_stop(void)
{
	bcn_trace_flush_all(true);
}

/* ---- descriptors and paths ------------------------------------------------ */

/* Normalises an absolute path in place: no "//", "/./", trailing "/." or
 * "/" (".." stays: symbolic links make it meaningful). */
static size_t normalise(char *p, size_t n)
{
	size_t r = 0, w = 0;

	while (r < n) {
		if (p[r] == '/' && w > 0 && p[w - 1] == '/') {
			r++;
		} else if (p[r] == '.' && w > 0 && p[w - 1] == '/' &&
			   (r + 1 == n || p[r + 1] == '/')) {
			r++;
		} else {
			p[w++] = p[r++];
		}
	}
	while (w > 1 && p[w - 1] == '/')
		w--;
	p[w] = '\0';
	return w;
}

/* Whether the n bytes at p, from position `from` on (the caller knows
 * p[0 .. from) is normal and does not end in '/', or from is 0), are
 * already what normalise would leave: no "//", "/./", trailing "/." or
 * "/". Finds the slashes with memchr: a path has few. */
static bool normal(const char *p, size_t n, size_t from)
{
	const char *s = p + from, *e = p + n;

	if (n > 1 && p[n - 1] == '/')
		return false;
	while (s < e && (s = memchr(s, '/', (size_t)(e - s))) != NULL) {
		if (s + 1 < e && s[1] == '/')
			return false;
		if (s + 1 < e && s[1] == '.' && (s + 2 == e || s[2] == '/'))
			return false;
		s++;
	}
	return true;
}

/* "/proc/self/fd/<fd>" into link (32 bytes). */
static void fd_link(char *link, int fd)
{
	static const char pre[] = "/proc/self/fd/";
	char digits[12];
	size_t n = 0, i;
	unsigned v = (unsigned)fd;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < sizeof(digits));
	memcpy(link, pre, sizeof(pre) - 1);
	for (i = 0; i < n; i++)
		link[sizeof(pre) - 1 + i] = digits[n - 1 - i];
	link[sizeof(pre) - 1 + n] = '\0';
}

/* The directory of dirfd into buf (readlink of /proc/self/fd), or 0. */
static size_t dir_of(int dirfd, char *buf, size_t len)
{
	char link[32];
	long n;

	fd_link(link, dirfd);
	n = syscall(SYS_readlink, link, buf, len - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (size_t)n;
}

/* The working directory into t->cwd, read again only after a chdir or
 * fchdir (g.cwd_gen moved); its length, 0 when it cannot be read. The
 * generation is read before getcwd: a chdir racing with it makes the
 * next call read again. */
static size_t cwd_of(struct thr *t)
{
	uint64_t gen = atomic_load_explicit(&g.cwd_gen, memory_order_acquire);
	long n;

	if (t->cwd_gen == gen)
		return t->cwd_len;
	t->cwd_len = 0;
	n = syscall(SYS_getcwd, t->cwd, sizeof(t->cwd) - 1);
	if (n > 0 && t->cwd[0] == '/') {
		/* normal already when it comes from the kernel */
		t->cwd_len = normalise(t->cwd, strlen(t->cwd));
	}
	t->cwd_gen = gen;
	return t->cwd_len;
}

/* The absolute, normalised form of path into t->path; its length, and
 * its file id into *id (the path is hashed once, whole). */
static size_t resolve_path(struct thr *t, int dirfd, const char *path,
			   uint64_t *id)
{
	size_t n = strnlen(path, TRACE_PATH_MAX - 1), d = 0, w;

	if (path[0] != '/') {
		if (dirfd == AT_FDCWD) {
			d = cwd_of(t);
			memcpy(t->path, t->cwd, d);
		} else {
			d = dir_of(dirfd, t->path, sizeof(t->path));
		}
		if (d + 1 + n >= sizeof(t->path))
			n = sizeof(t->path) - 2 - d;
		t->path[d++] = '/';
	}
	memcpy(t->path + d, path, n);
	/* the directory part is normal (it comes from the kernel): only
	 * what follows it is looked at, unless it is "/" (then "//" is
	 * there) */
	w = normal(t->path, d + n, d > 2 ? d - 1 : 0) ?
	    d + n : normalise(t->path, d + n);
	t->path[w] = '\0';
	*id = bcn_file_id(t->path, w);
	return w;
}

/* The first use of a descriptor the program opened through the tracer
 * (state st, FD_OPENED or FD_OPENED_APPEND): its type is read now, and
 * with O_APPEND its size as the position. */
static bool check_opened(int fd, struct fd_entry *e, uint32_t st)
{
	struct stat sb;
	uint32_t to;

	if (syscall(SYS_fstat, fd, &sb) != 0)
		return false;
	to = S_ISREG(sb.st_mode) || S_ISBLK(sb.st_mode) ? FD_FILE : FD_OTHER;
	if (to == FD_FILE && st == FD_OPENED_APPEND)
		atomic_store(&e->pos, (uint64_t)sb.st_size);
	/* unless a close or dup changed it meanwhile */
	atomic_compare_exchange_strong(&e->state, &st, to);
	return to == FD_FILE;
}

bool bcn_trace_fd_traced(int fd)
{
	struct fd_entry *e;
	struct stat sb;
	char link[32];
	char path[TRACE_PATH_MAX];
	long n;
	uint32_t st;

	if (fd < 0 || fd >= BCN_TRACE_FDS || !g.fds)
		return false;
	e = &g.fds[fd];
	st = atomic_load_explicit(&e->state, memory_order_relaxed);
	if (st == FD_FILE)
		return true;
	if (st == FD_OPENED || st == FD_OPENED_APPEND)
		return check_opened(fd, e, st);
	if (st != FD_UNKNOWN)
		return false;
	/* a descriptor we did not see opened: inherited, or opened inside
	 * the C library */
	if (syscall(SYS_fstat, fd, &sb) != 0)
		return false;
	if (!S_ISREG(sb.st_mode) && !S_ISBLK(sb.st_mode)) {
		atomic_store(&e->state, FD_OTHER);
		return false;
	}
	fd_link(link, fd);
	n = syscall(SYS_readlink, link, path, sizeof(path) - 1);
	atomic_store(&e->file, n > 0 ? bcn_file_id(path, (size_t)n) : 0);
	n = syscall(SYS_lseek, fd, 0L, SEEK_CUR);
	atomic_store(&e->pos, n > 0 ? (uint64_t)n : 0);
	atomic_store(&e->state, FD_FILE);
	return true;
}

static void record(const struct bcn_ioop *op)
{
	struct thr *t = thr_get();

	if (!t)
		return;
	bcn_iorun_add(&t->x, op);
	maybe_flush(t, op->end);
	thr_put(t);
}

/* Whether an open of the normalised path with flags must be classified
 * at once (one fstat) rather than at first use: under /dev (devices,
 * terminals; /dev/shm holds files) an open is recorded only for a block
 * device, as before; an O_DIRECTORY open is a directory and not
 * recorded. Returns FD_OTHER (not recorded), FD_FILE (recorded, checked)
 * or FD_OPENED (recorded, checked at first use). */
static uint32_t classify_open(int fd, const char *path, size_t n, int flags)
{
	struct stat sb;

	if (flags & O_DIRECTORY)
		return FD_OTHER;
	if (n < 5 || memcmp(path, "/dev/", 5) ||
	    (n > 9 && !memcmp(path + 5, "shm/", 4)))
		return FD_OPENED;
	if (syscall(SYS_fstat, fd, &sb) != 0 ||
	    (!S_ISREG(sb.st_mode) && !S_ISBLK(sb.st_mode)))
		return FD_OTHER;
	return FD_FILE;
}

void bcn_trace_opened(int fd, int dirfd, const char *path, int flags,
		      int64_t start, int64_t end)
{
	struct bcn_iorun run = { .op = BCN_IO_OPEN, .fd = fd < 0 ? -1 : fd,
				 .count = 1, .first = start, .last = end };
	struct fd_entry *e;
	uint32_t st = FD_OPENED;
	struct thr *t;
	size_t n;

	if (!path || fd >= BCN_TRACE_FDS)
		return;
	t = thr_get();
	if (!t)
		return;
	n = resolve_path(t, dirfd, path, &run.file);
	if (fd >= 0) {
		e = &g.fds[fd];
		st = classify_open(fd, t->path, n, flags);
		if (st == FD_OTHER) {
			atomic_store(&e->state, FD_OTHER);
			goto out;
		}
		if (st == FD_OPENED && (flags & O_APPEND))
			st = FD_OPENED_APPEND;
		/* plain stores on x86 (a sequentially consistent store is
		 * a locked exchange): the state, stored last with release,
		 * publishes file and position */
		atomic_store_explicit(&e->file, run.file,
				      memory_order_relaxed);
		atomic_store_explicit(&e->pos, 0, memory_order_relaxed);
		if (st == FD_FILE && (flags & O_APPEND))
			st = FD_OPENED_APPEND;  /* its size at first use */
		atomic_store_explicit(&e->state, st, memory_order_release);
		bcn_iorun_close_fd(&t->x, fd);
	}
	run.busy = (uint64_t)(end > start ? end - start : 0);
	put_rec(t, &run, t->path, n);
	maybe_flush(t, end);
out:
	thr_put(t);
}

uint64_t bcn_trace_close_begin(int fd)
{
	struct fd_entry *e;
	uint64_t file;
	uint32_t st;
	int s = atomic_load(&g.sock);

	if (fd == s && s >= 0)
		atomic_compare_exchange_strong(&g.sock, &s, -1);
	if (fd < 0 || fd >= BCN_TRACE_FDS || !g.fds)
		return 0;
	e = &g.fds[fd];
	st = atomic_exchange(&e->state, FD_UNKNOWN);
	if (st != FD_FILE && st != FD_OPENED && st != FD_OPENED_APPEND)
		return 0;
	file = atomic_load(&e->file);
	return file ? file : 1;
}

void bcn_trace_close_end(int fd, uint64_t file, int64_t start, int64_t end)
{
	struct bcn_iorun run = { .op = BCN_IO_CLOSE, .fd = fd, .file = file,
				 .count = 1, .first = start, .last = end };
	struct thr *t;

	if (!file || !(t = thr_get()))
		return;
	run.busy = (uint64_t)(end > start ? end - start : 0);
	bcn_iorun_close_fd(&t->x, fd);
	put_rec(t, &run, NULL, 0);
	maybe_flush(t, end);
	thr_put(t);
}

void bcn_trace_rw(int op, int fd, ssize_t res, enum bcn_trace_pos how,
		  uint64_t offset, int64_t start, int64_t end)
{
	struct fd_entry *e = &g.fds[fd];
	uint64_t n = res > 0 ? (uint64_t)res : 0;
	struct bcn_ioop o = { .op = (uint8_t)op, .fd = fd, .size = n,
			      .start = start, .end = end };

	o.file = atomic_load_explicit(&e->file, memory_order_relaxed);
	if (how == BCN_TRACE_AT_POS)
		o.offset = atomic_fetch_add_explicit(&e->pos, n,
						     memory_order_relaxed);
	else
		o.offset = offset;
	record(&o);
}

void bcn_trace_fdop(int op, int fd, uint64_t offset, int64_t start,
		    int64_t end)
{
	struct fd_entry *e = &g.fds[fd];
	struct bcn_ioop o = { .op = (uint8_t)op, .fd = fd, .offset = offset,
			      .start = start, .end = end };

	o.file = atomic_load_explicit(&e->file, memory_order_relaxed);
	if (op == BCN_IO_SEEK)
		atomic_store_explicit(&e->pos, offset, memory_order_relaxed);
	record(&o);
}

void bcn_trace_pathop(int op, int dirfd, const char *path, int64_t start,
		      int64_t end)
{
	struct bcn_ioop o = { .op = (uint8_t)op, .fd = -1, .start = start,
			      .end = end };
	struct thr *t;

	if (!path || !(t = thr_get()))
		return;
	(void)resolve_path(t, dirfd, path, &o.file);
	bcn_iorun_add(&t->x, &o);
	maybe_flush(t, end);
	thr_put(t);
}

void bcn_trace_cwd_changed(void)
{
	atomic_fetch_add_explicit(&g.cwd_gen, 1, memory_order_release);
}

void bcn_trace_dup(int fd, int fd2)
{
	struct fd_entry *a, *b;
	int s = atomic_load(&g.sock);

	/* the program put something else where our socket was */
	if (fd2 == s && s >= 0 && fd != s)
		atomic_compare_exchange_strong(&g.sock, &s, -1);

	if (fd < 0 || fd2 < 0 || fd >= BCN_TRACE_FDS || fd2 >= BCN_TRACE_FDS ||
	    !g.fds || fd == fd2)
		return;
	a = &g.fds[fd];
	b = &g.fds[fd2];
	atomic_store(&b->file, atomic_load(&a->file));
	atomic_store(&b->pos, atomic_load(&a->pos));
	atomic_store(&b->state, atomic_load(&a->state));
}
