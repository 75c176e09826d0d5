/* What tests/data/lwfs/sample.log holds, counted by hand from the file
 * (one line at a time, following docs/lwfs-log.md), for the parser's and
 * the source's golden tests. The log's times are at UTC+08:00. */
#ifndef BCN_TEST_LWFS_SAMPLE_H
#define BCN_TEST_LWFS_SAMPLE_H

#include <stdint.h>

#include "proto/record.h"

#define SAMPLE_LOG BCN_TEST_DATA "/lwfs/sample.log"
#define SAMPLE_OFFSET (8 * 3600)
#define SAMPLE_LINES 44
#define SAMPLE_VALID 39
#define SAMPLE_MALFORMED 5              /* lines 39 to 43 */
#define SAMPLE_FAILED 3                 /* results < 0: lines 24, 26, 30 */
#define SAMPLE_PIDS 4                   /* 4242 .. 4245 */
#define SAMPLE_BUSY_NS 251350000LL      /* dur= of lines 6, 21, 37 */
/* 2026-11-21 10:00:00.000100 and 10:00:06 at +08:00 */
#define SAMPLE_FIRST_NS 1795226400000100000LL
#define SAMPLE_LAST_NS 1795226406000000000LL

/* Operations and bytes moved (the result when >= 0, 0 when < 0, else
 * size=) per enum bcn_io_op. */
static const struct {
	unsigned op;
	uint64_t ops, bytes;
} sample_ops[] = {
	{ BCN_IO_OPEN, 6, 0 },          /* lines 3 10 18 26 32 35 */
	{ BCN_IO_CLOSE, 5, 0 },         /* 9 17 25 34 44 */
	{ BCN_IO_READ, 7, 74828 },      /* 19-24 33: 4096 4096 65536 1000
					 * 0 0 100 */
	{ BCN_IO_WRITE, 10, 3683338 },  /* 4-7 11-13 36-38: 3 x 1048576,
					 * 524288, 3 x 4096, 512, 512, 10 */
	{ BCN_IO_SYNC, 1, 0 },          /* 8 */
	{ BCN_IO_TRUNCATE, 1, 0 },      /* 15 */
	{ BCN_IO_STAT, 2, 0 },          /* 1 (LOOKUP) 14 (GETATTR) */
	{ BCN_IO_UNLINK, 1, 0 },        /* 29 */
	{ BCN_IO_RENAME, 1, 0 },        /* 28 */
	{ BCN_IO_MKDIR, 1, 0 },         /* 2 */
	{ BCN_IO_RMDIR, 1, 0 },         /* 30 */
	{ BCN_IO_OTHER, 3, 0 },         /* 16 (SETATTR) 27 (STATFS)
					 * 31 (FLOCK) */
};

#endif
