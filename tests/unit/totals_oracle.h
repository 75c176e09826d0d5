/* An oracle for bcn_record_totals() shared by unit tests that check sums
 * (store_test's buckets): where every operation of every record type
 * counts (read, write, metadata or other), in tables written by hand from
 * docs/records.md as tests/unit/record_totals_test.c's are, so that a
 * classification swapped in proto/record.c makes the store's sums differ
 * from the expected ones instead of moving both. Sums saturate at
 * UINT64_MAX as the stores' do. */
#ifndef BCN_TESTS_TOTALS_ORACLE_H
#define BCN_TESTS_TOTALS_ORACLE_H

#include <stdint.h>
#include <string.h>

#include "proto/record.h"

static const char oracle_io_class[BCN_IO_OP_MAX] = {
	[BCN_IO_OPEN] = 'm', [BCN_IO_CLOSE] = 'm', [BCN_IO_READ] = 'r',
	[BCN_IO_WRITE] = 'w', [BCN_IO_SEEK] = 'o', [BCN_IO_SYNC] = 'o',
	[BCN_IO_TRUNCATE] = 'o', [BCN_IO_STAT] = 'm', [BCN_IO_UNLINK] = 'm',
	[BCN_IO_RENAME] = 'm', [BCN_IO_MKDIR] = 'm', [BCN_IO_RMDIR] = 'm',
	[BCN_IO_OTHER] = 'o',
};

static const char oracle_ost_class[BCN_OST_OP_MAX] = {
	[BCN_OST_READ] = 'r', [BCN_OST_WRITE] = 'w', [BCN_OST_GETATTR] = 'm',
	[BCN_OST_SETATTR] = 'm', [BCN_OST_PUNCH] = 'o', [BCN_OST_SYNC] = 'o',
	[BCN_OST_DESTROY] = 'm', [BCN_OST_CREATE] = 'm', [BCN_OST_STATFS] = 'm',
	[BCN_OST_GET_INFO] = 'o', [BCN_OST_SET_INFO] = 'o',
	[BCN_OST_QUOTACTL] = 'o',
};

static const char oracle_md_class[BCN_MD_OP_MAX] = {
	[BCN_MD_OPEN] = 'm', [BCN_MD_CLOSE] = 'm', [BCN_MD_MKNOD] = 'm',
	[BCN_MD_LINK] = 'm', [BCN_MD_UNLINK] = 'm', [BCN_MD_MKDIR] = 'm',
	[BCN_MD_RMDIR] = 'm', [BCN_MD_RENAME] = 'm', [BCN_MD_GETATTR] = 'm',
	[BCN_MD_SETATTR] = 'm', [BCN_MD_GETXATTR] = 'm',
	[BCN_MD_SETXATTR] = 'm', [BCN_MD_STATFS] = 'm', [BCN_MD_SYNC] = 'm',
	[BCN_MD_SAMEDIR_RENAME] = 'm', [BCN_MD_CROSSDIR_RENAME] = 'm',
	[BCN_MD_PARALLEL_RENAME_FILE] = 'm',
	[BCN_MD_PARALLEL_RENAME_DIR] = 'm', [BCN_MD_READ] = 'r',
	[BCN_MD_WRITE] = 'w', [BCN_MD_PUNCH] = 'o', [BCN_MD_MIGRATE] = 'm',
	[BCN_MD_CREATE] = 'm',
};

static inline void oracle_add(uint64_t *a, uint64_t b)
{
	if (__builtin_add_overflow(*a, b, a))
		*a = UINT64_MAX;
}

/* Adds n operations (and bytes, for reads and writes) of class c. */
static inline void oracle_count(struct bcn_record_totals *t, char c,
				uint64_t n, uint64_t bytes)
{
	switch (c) {
	case 'r': oracle_add(&t->read_ops, n); oracle_add(&t->read_bytes, bytes); break;
	case 'w': oracle_add(&t->write_ops, n); oracle_add(&t->write_bytes, bytes); break;
	case 'm': oracle_add(&t->meta_ops, n); break;
	default: oracle_add(&t->other_ops, n); break;
	}
}

/* The totals record r must have, from the tables above. */
static inline void oracle_totals(const struct bcn_record *r,
				 struct bcn_record_totals *t)
{
	const struct bcn_rec_fwd_req *q = &r->u.fwd_req;
	static const char fwd_class[BCN_FWD_CLASS_MAX] = {
		[BCN_FWD_ALL] = 0, [BCN_FWD_READ] = 'r', [BCN_FWD_WRITE] = 'w',
		[BCN_FWD_META] = 'm', [BCN_FWD_OTHER] = 'o',
	};
	uint64_t bytes;

	memset(t, 0, sizeof(*t));
	switch (r->type) {
	case BCN_REC_IO:
		if (__builtin_mul_overflow(r->u.io.size, r->u.io.count, &bytes))
			bytes = UINT64_MAX;
		oracle_count(t, r->u.io.op < BCN_IO_OP_MAX ? oracle_io_class[r->u.io.op] : 'o',
			     r->u.io.count, bytes);
		break;
	case BCN_REC_FWD_REQ:           /* class all: the sum of the others */
		if (q->cls < BCN_FWD_CLASS_MAX && fwd_class[q->cls])
			oracle_count(t, fwd_class[q->cls], q->count, q->bytes);
		break;
	case BCN_REC_FWD_RPC:
		oracle_count(t, 'r', r->u.fwd_rpc.read_rpcs, r->u.fwd_rpc.read_bytes);
		oracle_count(t, 'w', r->u.fwd_rpc.write_rpcs, r->u.fwd_rpc.write_bytes);
		break;
	case BCN_REC_OST:
		for (unsigned i = 0; i < BCN_OST_OP_MAX; i++)
			oracle_count(t, oracle_ost_class[i], r->u.ost.ops[i], 0);
		oracle_add(&t->read_bytes, r->u.ost.read_bytes);
		oracle_add(&t->write_bytes, r->u.ost.write_bytes);
		break;
	case BCN_REC_MDS:
		for (unsigned i = 0; i < BCN_MD_OP_MAX; i++)
			oracle_count(t, oracle_md_class[i], r->u.mds.ops[i], 0);
		break;
	case BCN_REC_PORT:
		oracle_count(t, 'r', r->u.port.rcv_pkts, r->u.port.rcv_bytes);
		oracle_count(t, 'w', r->u.port.xmit_pkts, r->u.port.xmit_bytes);
		break;
	default:                        /* job records carry no I/O */
		break;
	}
}

#endif
