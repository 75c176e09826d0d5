/* The tracer source of beacon-clientd (tsock.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "collectors/client/procjob.h"
#include "collectors/client/tsock.h"
#include "common/clock.h"
#include "common/error.h"
#include "common/log.h"

#define CGROUP_MAX 8192                 /* bytes of /proc/PID/cgroup read */
#define PROC_RECHECK_NS (INT64_C(60) * 1000000000)  /* cgroup re-read */

#define HOLD_MAX 4                      /* io runs held back per process */
/* datagrams taken per recvmmsg call: a call that fills fewer found the
 * queue empty, so the usual wakeup (one datagram) takes one call instead
 * of a recvmsg and a second one that meets EAGAIN */
#define RECV_VEC 4

/* Why a process is forgotten (proc_forget). */
enum { FORGET_ENDED, FORGET_PARTIAL, FORGET_CUT, FORGET_EVICTED };

/* An io run held back, in case the next datagram continues it (a run
 * the tracer's flush cut): what an io record of the process says. */
struct held {
	int64_t t, dur;
	uint64_t job, step;
	int64_t rank;
	uint64_t op;
	int64_t fd;
	uint64_t file, offset, size, count;
	int64_t stride;
	uint64_t busy;
};

/* What we know of one traced process. */
struct proc {
	uint64_t pid;                   /* 0: free slot */
	uint64_t job, step;             /* from the cgroup, when have_cg */
	int have_cg;
	int64_t checked;                /* monotonic ns of the cgroup read */
	int64_t heard;                  /* monotonic ns of the last datagram */
	int64_t heard_real;             /* the same, wall clock */
	uint64_t max_seq, got;          /* sequence numbers seen: the gap is
					 * datagrams lost or still coming
					 * (threads send out of order) */
	uint64_t dropped, untraced;     /* the tracer's cumulative counts */
	uint64_t hjob;                  /* the job its last header claimed */
	struct held held[HOLD_MAX];     /* oldest first */
	unsigned nheld;
};

struct bcn_tsock {
	struct bcn_tsock_conf conf;
	int fd;
	char path[BCN_TSOCK_NAME_MAX + 1];      /* "" for abstract names */
	struct proc *procs;             /* open addressing by pid */
	size_t nprocs, cap;
	struct bcn_tsock_stats st;
	uint64_t lost_forgotten;        /* gaps of processes forgotten or
					 * ended */
	uint64_t rep_dropped, rep_lost, rep_bad, rep_cut; /* reported */
	struct bcn_complain bad_c, drop_c;
	struct bcn_record io;           /* an io record set up once (it is
					 * 1.2 KiB): emit sets every field
					 * a held run has */
	char pathbuf[BCN_TMSG_PATH_MAX + 1];
	uint8_t buf[RECV_VEC][BCN_TMSG_MAX + 1];
};

static int bind_socket(struct bcn_tsock *s)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	const char *name = s->conf.socket;
	size_t n = strlen(name);
	socklen_t len;
	int one = 1, sz = (int)s->conf.rcvbuf;

	s->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->fd < 0)
		return -errno;
	if (setsockopt(s->fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)))
		return -errno;
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		(void)setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	memcpy(a.sun_path, name, n);
	if (name[0] == '@') {
		a.sun_path[0] = '\0';
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	} else {
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
		(void)unlink(name);     /* a stale socket of a previous run */
		memcpy(s->path, name, n + 1);
	}
	if (bind(s->fd, (struct sockaddr *)&a, len))
		return -errno;
	/* every user's processes are traced and send here */
	if (s->path[0] && chmod(s->path, 0666))
		return -errno;
	return 0;
}

int bcn_tsock_open(struct bcn_tsock **out, const struct bcn_tsock_conf *conf)
{
	struct bcn_tsock *s = calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->conf = *conf;
	s->fd = -1;
	bcn_record_init(&s->io, BCN_REC_IO);
	s->cap = 64;
	while (s->cap < conf->procs_max * 2)
		s->cap *= 2;
	s->procs = calloc(s->cap, sizeof(*s->procs));
	if (!s->procs) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = bind_socket(s);
	if (rc) {
		BCN_ERR("tracer socket %s: %s", conf->socket, bcn_strerror(rc));
		goto fail;
	}
	*out = s;
	return 0;
fail:
	bcn_tsock_close(s);
	return rc;
}

int bcn_tsock_fd(const struct bcn_tsock *s)
{
	return s->fd;
}

static void release(struct bcn_tsock *s, struct bcn_collector *c,
		    struct proc *p);

/* ---- the process table ------------------------------------------------------ */

static size_t slot_of(const struct bcn_tsock *s, uint64_t pid)
{
	return (size_t)((pid * 0x9e3779b97f4a7c15ull) >> 17) & (s->cap - 1);
}

/* Removes the entry at i, moving later entries of its cluster back. */
static void proc_remove(struct bcn_tsock *s, size_t i)
{
	size_t j = i, k;

	s->procs[i].pid = 0;
	s->nprocs--;
	for (;;) {
		j = (j + 1) & (s->cap - 1);
		if (!s->procs[j].pid)
			return;
		k = slot_of(s, s->procs[j].pid);
		/* can the entry at j move to the hole at i? */
		if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		s->procs[i] = s->procs[j];
		s->procs[j].pid = 0;
		i = j;
	}
}

/* Forgets the process at i, keeping its sequence gap as datagrams
 * lost; when its records miss anything (or its stream was cut, or ended
 * partial: how says which), a trace_loss record says what, in its job. */
static void proc_forget(struct bcn_tsock *s, struct bcn_collector *c,
			size_t i, int how)
{
	const struct proc *p = &s->procs[i];
	uint64_t gap = p->max_seq > p->got ? p->max_seq - p->got : 0;
	struct bcn_record r;

	release(s, c, &s->procs[i]);
	s->lost_forgotten += gap;
	if (gap || p->dropped || p->untraced || how != FORGET_ENDED) {
		bcn_record_init(&r, BCN_REC_TRACE_LOSS);
		/* when the process was last heard: inside its job's window
		 * even when the loss is found later (a cut stream) */
		r.t = p->heard_real;
		r.job = p->have_cg ? p->job : p->hjob;
		r.u.trace_loss.pid = p->pid;
		r.u.trace_loss.dropped_ops = p->dropped;
		r.u.trace_loss.lost_datagrams = gap;
		r.u.trace_loss.untraced = p->untraced;
		r.u.trace_loss.cut = how == FORGET_CUT;
		r.u.trace_loss.partial = how == FORGET_PARTIAL;
		if (bcn_collector_add(c, &r) == 0)
			s->st.loss_records++;
	}
	proc_remove(s, i);
}

/* Forgets the least recently heard process (a full table). */
static void proc_evict(struct bcn_tsock *s, struct bcn_collector *c)
{
	size_t i, old = SIZE_MAX;

	for (i = 0; i < s->cap; i++)
		if (s->procs[i].pid &&
		    (old == SIZE_MAX || s->procs[i].heard < s->procs[old].heard))
			old = i;
	if (old != SIZE_MAX) {
		proc_forget(s, c, old, FORGET_EVICTED);
		s->st.procs_forgotten++;
	}
}

static struct proc *proc_get(struct bcn_tsock *s, struct bcn_collector *c,
			     uint64_t pid)
{
	size_t i = slot_of(s, pid);

	while (s->procs[i].pid) {
		if (s->procs[i].pid == pid)
			return &s->procs[i];
		i = (i + 1) & (s->cap - 1);
	}
	if (s->nprocs >= s->conf.procs_max) {
		proc_evict(s, c);
		return proc_get(s, c, pid);
	}
	memset(&s->procs[i], 0, sizeof(s->procs[i]));
	s->procs[i].pid = pid;
	s->nprocs++;
	return &s->procs[i];
}

/* The Slurm job of pid from <root>/proc/<pid>/cgroup, re-read now and
 * then (a process may be adopted into a job's cgroup after it started). */
static void proc_job(struct bcn_collector *c, struct proc *p, int64_t now)
{
	char rel[64], path[BCN_COLLECTOR_PATH_MAX], buf[CGROUP_MAX];
	struct bcn_procjob pj;
	ssize_t n;
	int fd;

	if (p->checked && now - p->checked < PROC_RECHECK_NS)
		return;
	p->checked = now;
	snprintf(rel, sizeof(rel), "/proc/%" PRIu64 "/cgroup", p->pid);
	if (bcn_collector_path(c, rel, path, sizeof(path)))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;                 /* gone, or not ours to read */
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return;
	bcn_procjob_cgroup(buf, (size_t)n, &pj);
	p->have_cg = pj.has_job;
	p->job = pj.job;
	p->step = pj.has_step ? pj.step : BCN_PROCJOB_STEP_NONE;
}

/* ---- datagrams ------------------------------------------------------------------ */

/* Adds the io record of h to c. */
static void emit(struct bcn_tsock *s, struct bcn_collector *c,
		 uint64_t pid, const struct held *h)
{
	struct bcn_record *r = &s->io;

	/* every field below is set: the rest stays as bcn_tsock_open set
	 * it up (clearing 1.2 KiB per record was a seventh of the time) */
	r->t = h->t;
	r->dur = h->dur;
	r->job = h->job;
	r->u.io.step = h->step;
	r->u.io.rank = h->rank;
	r->u.io.pid = pid;
	r->u.io.op = h->op;
	r->u.io.fd = h->fd;
	r->u.io.file = h->file;
	r->u.io.offset = h->offset;
	r->u.io.size = h->size;
	r->u.io.count = h->count;
	r->u.io.stride = h->stride;
	r->u.io.busy = h->busy;
	if (!r->job)
		s->st.unattributed++;
	if (bcn_collector_add(c, r) == 0) {
		s->st.records++;
		s->st.ops += h->count;
	}
}

/* Adds the runs p holds back to c. */
static void release(struct bcn_tsock *s, struct bcn_collector *c,
		    struct proc *p)
{
	for (unsigned i = 0; i < p->nheld; i++)
		emit(s, c, p->pid, &p->held[i]);
	p->nheld = 0;
}

/* Whether n continues h as one contiguous run (each operation starting
 * where the one before ended) of the same call on the same descriptor
 * and file, as the tracer would have made it without a flush in
 * between; then h becomes the joined run. */
static bool join(struct held *h, const struct held *n)
{
	uint64_t next, count, busy, end_h, end_n;

	if (n->op != h->op || n->fd != h->fd || n->file != h->file ||
	    n->size != h->size || n->job != h->job || n->step != h->step ||
	    n->rank != h->rank || h->size == 0 || h->size > INT64_MAX ||
	    (h->count > 1 && h->stride != (int64_t)h->size) ||
	    (n->count > 1 && n->stride != (int64_t)n->size) ||
	    __builtin_mul_overflow(h->count, h->size, &next) ||
	    __builtin_add_overflow(h->offset, next, &next) ||
	    next != n->offset ||
	    __builtin_add_overflow(h->count, n->count, &count) ||
	    __builtin_add_overflow(h->busy, n->busy, &busy))
		return false;
	end_h = (uint64_t)h->t + (uint64_t)h->dur;
	end_n = (uint64_t)n->t + (uint64_t)n->dur;
	if (n->t < h->t)
		h->t = n->t;
	h->dur = (int64_t)((end_n > end_h ? end_n : end_h) - (uint64_t)h->t);
	h->count = count;
	h->stride = (int64_t)h->size;
	h->busy = busy;
	return true;
}

/* Takes the read or write run n of process p: joined to a run held
 * back that it continues, else held back itself (the oldest held run
 * of the same descriptor and file, or the oldest of all when there is
 * no room, goes out). */
static void hold(struct bcn_tsock *s, struct bcn_collector *c,
		 struct proc *p, const struct held *n)
{
	unsigned i;

	for (i = 0; i < p->nheld; i++)
		if (join(&p->held[i], n)) {
			s->st.joined++;
			return;
		}
	for (i = 0; i < p->nheld; i++)
		if (p->held[i].fd == n->fd && p->held[i].file == n->file)
			break;
	if (i == p->nheld && p->nheld == HOLD_MAX)
		i = 0;
	if (i < p->nheld) {
		emit(s, c, p->pid, &p->held[i]);
		if (i + 1 < p->nheld)   /* (random I/O: the last one goes) */
			memmove(&p->held[i], &p->held[i + 1],
				(p->nheld - i - 1) * sizeof(p->held[0]));
		p->nheld--;
	}
	p->held[p->nheld++] = *n;
}

/* Whether a run of n could ever be joined to another (join): a run of
 * one operation, or a contiguous one. A strided run (random offsets make
 * pairs of them) cannot. */
static bool joinable(const struct held *n)
{
	return n->size && n->size <= INT64_MAX &&
	       (n->count <= 1 || n->stride == (int64_t)n->size);
}

/* Takes the read or write run n of process p that no run can join: out
 * at once, after the held run of its descriptor and file, if any (the
 * runs of a file stay in order). */
static void pass(struct bcn_tsock *s, struct bcn_collector *c,
		 struct proc *p, const struct held *n)
{
	for (unsigned i = 0; i < p->nheld; i++) {
		if (p->held[i].fd != n->fd || p->held[i].file != n->file)
			continue;
		emit(s, c, p->pid, &p->held[i]);
		memmove(&p->held[i], &p->held[i + 1],
			(p->nheld - i - 1) * sizeof(p->held[0]));
		p->nheld--;
		break;          /* (hold keeps one per descriptor and file) */
	}
	emit(s, c, p->pid, n);
}

void bcn_tsock_release(struct bcn_tsock *s, struct bcn_collector *c,
		       bool all)
{
	int64_t now = bcn_mono_ms() * 1000000;

	for (size_t i = 0; i < s->cap; i++)
		if (s->procs[i].pid && s->procs[i].nheld &&
		    (all || now - s->procs[i].heard >= BCN_TSOCK_HOLD_NS))
			release(s, c, &s->procs[i]);
}

static void add_records(struct bcn_tsock *s, struct bcn_collector *c,
			const struct bcn_tmsg_hdr *h, struct proc *p,
			const uint8_t *buf, size_t len)
{
	struct bcn_tmsg_rec tr;
	struct bcn_record r;
	struct held n;
	size_t off = BCN_TMSG_HDR_LEN;
	uint32_t i;
	int rc;

	/* the record is set up once per datagram (it is 1.2 KiB): each
	 * record below sets every io field */
	bcn_record_init(&r, BCN_REC_IO);
	r.job = p->have_cg ? p->job : h->job;
	r.u.io.step = p->have_cg ? p->step : h->step;
	r.u.io.rank = h->rank;
	r.u.io.pid = p->pid;
	for (i = 0; i < h->nrec; i++) {
		rc = bcn_tmsg_next(buf, len, &off, &tr);
		if (rc) {
			s->st.bad_records += h->nrec - i;
			bcn_complain(&s->bad_c, BCN_LOG_WARNING, "tracer "
				     "datagram of pid %" PRIu64 ": record %u: "
				     "%s", p->pid, i, bcn_strerror(rc));
			return;         /* the rest cannot be found */
		}
		r.t = tr.run.first;
		r.dur = tr.run.last - tr.run.first;
		r.u.io.op = tr.run.op;
		r.u.io.fd = tr.run.fd;
		r.u.io.file = tr.run.file;
		r.u.io.offset = tr.run.offset;
		r.u.io.size = tr.run.size;
		r.u.io.count = tr.run.count;
		r.u.io.stride = tr.run.stride;
		r.u.io.busy = tr.run.busy;
		r.u.io.path = "";
		if (!tr.path_len && (tr.run.op == BCN_IO_READ ||
				     tr.run.op == BCN_IO_WRITE)) {
			n = (struct held){ r.t, r.dur, r.job, r.u.io.step,
					   r.u.io.rank, r.u.io.op, r.u.io.fd,
					   r.u.io.file, r.u.io.offset,
					   r.u.io.size, r.u.io.count,
					   r.u.io.stride, r.u.io.busy };
			if (joinable(&n))
				hold(s, c, p, &n);
			else
				pass(s, c, p, &n);
			continue;
		}
		if (tr.path_len) {
			memcpy(s->pathbuf, tr.path, tr.path_len);
			s->pathbuf[tr.path_len] = '\0';
			r.u.io.path = s->pathbuf;
		}
		if (!r.job)
			s->st.unattributed++;
		if (bcn_collector_add(c, &r) == 0) {
			s->st.records++;
			s->st.ops += tr.run.count;
		}
	}
}

/* The sender's pid from the credentials the kernel attached, or 0. */
static uint64_t sender_pid(struct msghdr *mh)
{
	struct cmsghdr *cm;
	struct ucred cr;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_CREDENTIALS &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(cr))) {
			memcpy(&cr, CMSG_DATA(cm), sizeof(cr));
			return cr.pid > 0 ? (uint64_t)cr.pid : 0;
		}
	}
	return 0;
}

/* Takes the datagram buf[0 .. len) that process pid sent (0: unknown). */
static void take(struct bcn_tsock *s, struct bcn_collector *c,
		 const uint8_t *buf, size_t len, uint64_t pid)
{
	struct bcn_tmsg_hdr h;
	struct proc *p;
	int64_t now = bcn_mono_ms() * 1000000;
	int rc = bcn_tmsg_parse_hdr(buf, len, &h);

	if (rc) {
		s->st.bad_datagrams++;
		bcn_complain(&s->bad_c, BCN_LOG_WARNING, "tracer socket: a "
			     "datagram of %zu bytes from pid %" PRIu64 " "
			     "dropped: %s", len, pid, bcn_strerror(rc));
		return;
	}
	if (!pid) {
		s->st.no_creds++;
		pid = h.pid;
	}
	p = proc_get(s, c, pid);
	p->heard = now;
	p->heard_real = bcn_real_ns();
	proc_job(c, p, now);
	s->st.datagrams++;
	p->got++;
	if (h.seq > p->max_seq)
		p->max_seq = h.seq;
	if (h.dropped_ops > p->dropped) {
		s->st.dropped_ops += h.dropped_ops - p->dropped;
		p->dropped = h.dropped_ops;
	}
	if (h.untraced > p->untraced) {
		s->st.untraced += h.untraced - p->untraced;
		p->untraced = h.untraced;
	}
	p->hjob = h.job;
	add_records(s, c, &h, p, buf, len);
	if (h.flags & BCN_TMSG_F_END) {
		/* the stream is complete: its gaps are final; the pid may
		 * come back as a new stream (a failed exec, reuse) */
		s->st.streams_ended++;
		if (h.flags & BCN_TMSG_F_PARTIAL)
			s->st.streams_partial++;
		proc_forget(s, c, (size_t)(p - s->procs),
			    (h.flags & BCN_TMSG_F_PARTIAL) ? FORGET_PARTIAL :
			    FORGET_ENDED);
	}
}

int bcn_tsock_receive(struct bcn_tsock *s, struct bcn_collector *c,
		      bool drain)
{
	union {
		char b[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl[RECV_VEC];
	struct iovec iov[RECV_VEC];
	struct mmsghdr mm[RECV_VEC];
	int i = 0, n, k, want;

	while (drain || i < BCN_TSOCK_BATCH) {
		want = drain || BCN_TSOCK_BATCH - i >= RECV_VEC ? RECV_VEC :
		       BCN_TSOCK_BATCH - i;
		memset(mm, 0, sizeof(mm));
		for (k = 0; k < RECV_VEC; k++) {
			iov[k].iov_base = s->buf[k];
			iov[k].iov_len = sizeof(s->buf[k]);
			mm[k].msg_hdr.msg_iov = &iov[k];
			mm[k].msg_hdr.msg_iovlen = 1;
			mm[k].msg_hdr.msg_control = ctl[k].b;
			mm[k].msg_hdr.msg_controllen = sizeof(ctl[k].b);
		}
		n = recvmmsg(s->fd, mm, (unsigned)want,
			     MSG_DONTWAIT | MSG_CMSG_CLOEXEC, NULL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (k = 0; k < n; k++, i++) {
			if (mm[k].msg_len > BCN_TMSG_MAX ||
			    (mm[k].msg_hdr.msg_flags & MSG_TRUNC)) {
				s->st.bad_datagrams++;
				bcn_complain(&s->bad_c, BCN_LOG_WARNING,
					     "tracer socket: a datagram over "
					     "%d bytes dropped", BCN_TMSG_MAX);
				continue;
			}
			take(s, c, s->buf[k], mm[k].msg_len,
			     sender_pid(&mm[k].msg_hdr));
		}
		if (n < want)
			return 0;       /* the queue was empty */
	}
	return 0;
}

/* Datagrams missing: the sequence gaps of every process. */
static void count_lost(struct bcn_tsock *s)
{
	uint64_t lost = s->lost_forgotten;
	size_t i;

	for (i = 0; i < s->cap; i++)
		if (s->procs[i].pid && s->procs[i].max_seq > s->procs[i].got)
			lost += s->procs[i].max_seq - s->procs[i].got;
	s->st.lost_datagrams = lost;
}

/* Whether process pid is gone from c's /proc (an error other than "no
 * such file" counts as present: it may only be unreadable). */
static bool proc_gone(struct bcn_collector *c, uint64_t pid)
{
	char rel[48], path[BCN_COLLECTOR_PATH_MAX];
	struct stat st;

	snprintf(rel, sizeof(rel), "/proc/%" PRIu64, pid);
	if (bcn_collector_path(c, rel, path, sizeof(path)))
		return false;
	return stat(path, &st) != 0 && errno == ENOENT;
}

/* Cuts the streams of processes gone without their end. */
static void sweep_gone(struct bcn_tsock *s, struct bcn_collector *c)
{
	int64_t now = bcn_mono_ms() * 1000000;
	size_t i = 0, looks = 0, most = s->cap + s->nprocs;

	/* a removal moves a later entry into i: i is looked at again */
	while (i < s->cap && looks++ < most) {
		struct proc *p = &s->procs[i];

		if (p->pid && now - p->heard >= BCN_TSOCK_GONE_NS &&
		    proc_gone(c, p->pid)) {
			s->st.streams_cut++;
			proc_forget(s, c, i, FORGET_CUT);
			continue;
		}
		i++;
	}
}

void bcn_tsock_report(struct bcn_tsock *s, struct bcn_collector *c)
{
	uint64_t d, l, b, cut;

	sweep_gone(s, c);
	count_lost(s);
	d = s->st.dropped_ops - s->rep_dropped;
	l = s->st.lost_datagrams > s->rep_lost ?
	    s->st.lost_datagrams - s->rep_lost : 0;
	b = s->st.bad_datagrams + s->st.bad_records - s->rep_bad;
	cut = s->st.streams_cut + s->st.streams_partial - s->rep_cut;

	if (!d && !l && !b && !cut)
		return;
	bcn_complain(&s->drop_c, BCN_LOG_WARNING, "tracers dropped %" PRIu64
		     " operations (socket full or no daemon), %" PRIu64
		     " datagrams lost, %" PRIu64 " bad datagrams or records, "
		     "%" PRIu64 " process streams cut or partial "
		     "(totals %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64
		     ")", d, l, b, cut, s->st.dropped_ops, s->st.lost_datagrams,
		     s->st.bad_datagrams + s->st.bad_records,
		     s->st.streams_cut + s->st.streams_partial);
	s->rep_cut = s->st.streams_cut + s->st.streams_partial;
	s->rep_dropped = s->st.dropped_ops;
	s->rep_lost = s->st.lost_datagrams;
	s->rep_bad = s->st.bad_datagrams + s->st.bad_records;
}

bool bcn_tsock_idle(const struct bcn_tsock *s)
{
	/* (without processes the losses are those of forgotten ones) */
	return s->nprocs == 0 && s->st.dropped_ops == s->rep_dropped &&
	       s->lost_forgotten <= s->rep_lost &&
	       s->st.bad_datagrams + s->st.bad_records == s->rep_bad &&
	       s->st.streams_cut + s->st.streams_partial == s->rep_cut;
}

void bcn_tsock_stats(struct bcn_tsock *s, struct bcn_tsock_stats *st)
{
	count_lost(s);
	*st = s->st;
}

void bcn_tsock_close(struct bcn_tsock *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	if (s->path[0])
		(void)unlink(s->path);
	free(s->procs);
	free(s);
}
