/* First-pass compression of a process's I/O operations, online and in
 * linear time, inside the traced process (collectors/client/tracer/trace.c) and
 * in beacon-clientd for the LWFS log source.
 *
 * A compressor keeps a few open runs. An operation extends the open run
 * with the same op, descriptor, file and size when its offset continues
 * the run: offset == run.offset + run.count * run.stride, the stride being
 * fixed by the run's second operation. The paper's algorithm is the
 * special case of one open run and stride == size (contiguous ranges);
 * BCN_IORUN_STRIDED also folds constant-stride runs (strided N-1 and
 * column writes, stride 0 for repeated stats or rewrites, negative
 * strides for backward scans), and keeps one open run per (op, fd, file)
 * up to the number of slots, so that interleaved descriptors (cp reading
 * one file and writing another) and lseek+read pairs compress too.
 *
 * Lossless for what a run keeps: for every (op, fd, file) the sequence of
 * (offset, size) is rebuilt exactly by bcn_iorun_expand(); each run keeps
 * the start of its first operation, the end of its last and the sum of
 * the durations (so bytes over time and busy time stay exact). The start
 * times of the operations inside a run are not kept.
 *
 * Memory is fixed at init: no allocation, no locks, no system calls; a
 * compressor belongs to one thread. */
#ifndef BCN_IORUN_H
#define BCN_IORUN_H

#include <stdbool.h>
#include <stdint.h>

#define BCN_IORUN_SLOTS_MAX 16          /* open runs per compressor */

/* One traced operation. */
struct bcn_ioop {
	uint8_t op;             /* enum bcn_io_op (proto/record.h) */
	int64_t fd;             /* descriptor or handle, -1 for none */
	uint64_t file;          /* stable id of the path, 0 unknown */
	uint64_t offset;        /* bytes; 0 for operations without one */
	uint64_t size;          /* bytes moved (0 for metadata operations) */
	int64_t start;          /* ns since the epoch */
	int64_t end;            /* ns since the epoch, >= start */
};

/* A run of count >= 1 operations with the same op, fd, file and size;
 * operation i (0-based) is at offset + i * stride. stride is 0 when
 * count == 1. */
struct bcn_iorun {
	uint8_t op;
	int64_t fd;
	uint64_t file;
	uint64_t offset;
	uint64_t size;
	uint64_t count;
	int64_t stride;
	int64_t first;          /* start of the first operation */
	int64_t last;           /* end of the last operation */
	uint64_t busy;          /* sum of (end - start) over the run */
};

enum bcn_iorun_mode {
	BCN_IORUN_CONTIG,       /* the paper's merge: stride == size only */
	BCN_IORUN_STRIDED,      /* any constant stride */
};

/* Receives each run the compressor closes, in the order they close. */
typedef void bcn_iorun_emit_fn(void *arg, const struct bcn_iorun *run);

struct bcn_iorun_ctx {
	struct bcn_iorun open[BCN_IORUN_SLOTS_MAX];
	uint64_t used[BCN_IORUN_SLOTS_MAX];     /* last use, for eviction */
	unsigned nopen, slots;
	uint64_t clock;
	enum bcn_iorun_mode mode;
	uint64_t max_count;             /* longest run before it is closed */
	bcn_iorun_emit_fn *emit;
	void *arg;
	/* statistics */
	uint64_t ops_in;                /* operations added */
	uint64_t runs_out;              /* runs emitted */
};

/* Sets up a compressor with slots open runs (1 .. BCN_IORUN_SLOTS_MAX;
 * out-of-range values are clamped; BCN_IORUN_CONTIG always uses 1, the
 * paper's merge with the preceding operation only); runs are closed at
 * max_count operations (0: no limit). emit may be NULL (runs are then
 * only counted). */
void bcn_iorun_init(struct bcn_iorun_ctx *x, enum bcn_iorun_mode mode,
		    unsigned slots, uint64_t max_count,
		    bcn_iorun_emit_fn *emit, void *arg);

/* Adds one operation: it extends an open run, or opens one (closing the
 * least recently used run when all slots are taken). Runs closed by it
 * are emitted before it returns. There is at most one open run per
 * (op, fd, file), so each key's runs are emitted in operation order.
 * An operation whose offset continues a run only modulo 2^64, or whose
 * stride would not fit in int64, opens a new run. busy saturates at
 * UINT64_MAX; negative durations count as 0. The compressor's state is
 * consistent while emit runs, but emit must not call back into it. */
void bcn_iorun_add(struct bcn_iorun_ctx *x, const struct bcn_ioop *op);

/* Closes (emits) the open runs of descriptor fd, oldest first (least
 * recently extended first, the order eviction would close them). */
void bcn_iorun_close_fd(struct bcn_iorun_ctx *x, int64_t fd);

/* Closes (emits) every open run, oldest first. */
void bcn_iorun_flush(struct bcn_iorun_ctx *x);

/* Drops every open run without emitting it and zeroes ops_in and
 * runs_out (the child after fork: the parent reports what came before). */
void bcn_iorun_reset(struct bcn_iorun_ctx *x);

/* Operation i of run (0 <= i < count) into *op, with start = end = 0
 * except for the first (start = run->first) and the last (end =
 * run->last). Returns 0, or -ERANGE when i is out of range or its offset
 * would leave [0, 2^64). Pure. */
int bcn_iorun_expand(const struct bcn_iorun *run, uint64_t i,
		     struct bcn_ioop *op);

#endif
