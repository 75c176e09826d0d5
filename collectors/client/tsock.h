/* beacon-clientd's tracer source: the local datagram socket that every
 * traced process on the node sends its compressed runs to
 * (collectors/client/tracer/tmsg.h, docs/tracer.md). The kernel tells us which
 * process sent each datagram (SO_PASSCRED), so the pid in the records is
 * not the sender's word; the Slurm job comes from that process's cgroup
 * when it has one, else from its environment as the tracer read it, else
 * it is 0 ("not attributed", never dropped).
 *
 * The socket never makes a traced process wait while it runs: it sends
 * without blocking and counts what it could not send; only the end of a
 * process image waits, bounded, for room. Every datagram says how many
 * operations its process has dropped so far, sequence numbers show
 * datagrams lost on the way, and an end datagram closes each process's
 * stream, so that a stream whose end never came (the process was killed,
 * or its end was lost) is found once the process is gone. All of it is
 * counted here and logged. */
#ifndef BCN_TSOCK_H
#define BCN_TSOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include "collectors/client/tracer/tmsg.h"
#include "collectors/runtime/collector.h"
#include "common/config.h"
#include "common/log.h"

#define BCN_TSOCK_NAME_MAX (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)
#define BCN_TSOCK_BATCH 256             /* datagrams per ready() call */

struct bcn_tsock_conf {
	bool on;                                /* the tracer source */
	char socket[BCN_TSOCK_NAME_MAX + 1];    /* "@abstract" or a path */
	uint64_t procs_max;                     /* processes remembered */
	uint64_t rcvbuf;                        /* SO_RCVBUF asked for */
};

#define BCN_TSOCK_CONFIG_OPTIONS(type, m) \
	{ "tracer", BCN_CFG_BOOL, BCN_CFG_MEMBER(type, m.on), .def = "yes", \
	  .help = "Receive the records of libbeacon_trace.so." }, \
	{ "tracer_socket", BCN_CFG_STRING, BCN_CFG_MEMBER(type, m.socket), \
	  .min = 2, .def = "@beacon-clientd", \
	  .help = "The tracer's socket: '@name' (abstract, no file) or a " \
		  "path; the tracer's BEACON_TRACE_SOCKET must match." }, \
	{ "tracer_procs_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.procs_max), .min = 16, .max = 1u << 22, \
	  .def = "2048", \
	  .help = "Traced processes remembered at once (job, sequence " \
		  "numbers); the least recently heard is forgotten." }, \
	{ "tracer_rcvbuf", BCN_CFG_SIZE, BCN_CFG_MEMBER(type, m.rcvbuf), \
	  .min = 65536, .max = 1u << 30, .def = "4M", \
	  .help = "Socket receive buffer asked for." }

struct bcn_tsock_stats {
	uint64_t datagrams;             /* accepted */
	uint64_t records, ops;          /* records added, operations in them */
	uint64_t bad_datagrams;         /* wrong magic/version, truncated */
	uint64_t bad_records;           /* skipped inside good datagrams */
	uint64_t lost_datagrams;        /* sequence gaps now (datagrams
					 * that may still come included) */
	uint64_t dropped_ops;           /* tracers' own drop counts */
	uint64_t untraced;              /* calls tracers passed untraced */
	uint64_t no_creds;              /* datagrams without credentials */
	uint64_t procs_forgotten;       /* evicted from a full table */
	uint64_t unattributed;          /* records with job 0 */
	uint64_t streams_ended;         /* processes whose end came */
	uint64_t streams_partial;       /* ends saying a thread's runs were
					 * lost */
	uint64_t streams_cut;           /* processes gone without an end:
					 * their last records may be lost */
	uint64_t loss_records;          /* trace_loss records added */
	uint64_t joined;                /* runs joined to the run before them
					 * (cut by a flush): records saved */
};

/* A process not heard for this long is looked for in /proc; gone
 * without its end datagram, its stream counts as cut. */
#define BCN_TSOCK_GONE_NS (INT64_C(10) * 1000000000)

/* Read and write runs are held back this long after their process was
 * last heard, so that a run the tracer's flush cut is joined again with
 * its continuation in the next datagram (docs/tracer.md). */
#define BCN_TSOCK_HOLD_NS (INT64_C(2) * 1000000000)

struct bcn_tsock;

/* Binds the socket (a stale socket file at a path is replaced) and sets
 * up the process table. Returns 0 or a negative code (logged). */
int bcn_tsock_open(struct bcn_tsock **out, const struct bcn_tsock_conf *conf);

/* The descriptor to watch for readability. */
int bcn_tsock_fd(const struct bcn_tsock *s);

/* Takes up to BCN_TSOCK_BATCH queued datagrams without blocking (all of
 * them with drain), a few at a time (recvmmsg: no call that only meets
 * an empty queue when it held fewer), and adds their records to c. Returns 0 or a receive
 * error; bad datagrams are counted and logged (rate-limited), not
 * errors. */
int bcn_tsock_receive(struct bcn_tsock *s, struct bcn_collector *c,
		      bool drain);

/* Finds the streams of processes gone without their end (a process
 * not heard for BCN_TSOCK_GONE_NS and absent from c's /proc), counts
 * them with their gaps, forgets them, and logs what was dropped or lost
 * since the last call (rate-limited). */
void bcn_tsock_report(struct bcn_tsock *s, struct bcn_collector *c);

void bcn_tsock_stats(struct bcn_tsock *s, struct bcn_tsock_stats *st);

/* Whether a sample would find nothing to do: no process followed (so
 * no runs held back, no stream to sweep) and every drop, loss or bad
 * datagram reported. */
bool bcn_tsock_idle(const struct bcn_tsock *s);

/* Adds the runs held back to c: of processes not heard for
 * BCN_TSOCK_HOLD_NS, or all of them (the last sample). */
void bcn_tsock_release(struct bcn_tsock *s, struct bcn_collector *c,
		       bool all);

/* Closes the socket (removing a path socket's file) and frees s. */
void bcn_tsock_close(struct bcn_tsock *s);

#endif
