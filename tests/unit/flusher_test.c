/* Tests of the flusher's decisions (logsrv/flusher.c): which failures to
 * open a queued frame send it to the dead letters and which leave it queued
 * for a retry, against the codes the frame codec really returns for each
 * kind of damage; and the frame limits the server and the flusher derive
 * from the configuration. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/error.h"
#include "logsrv/logsrv.h"
#include "proto/frame.h"

static void test_fate_table(void **state)
{
	const int dead[] = { -BCN_ETRUNC, -BCN_EMAGIC, -BCN_EVERSION, -BCN_ETOOBIG,
			     -BCN_ECHECKSUM, -BCN_ECORRUPT, -BCN_EKIND };
	const int retry[] = { -ENOMEM, -EIO, -EAGAIN, -EINTR, -BCN_EFULL,
			      -BCN_ERANGE, -EINVAL, -1 };

	for (size_t i = 0; i < sizeof(dead) / sizeof(dead[0]); i++)
		assert_int_equal(bcn_flusher_fate(dead[i]), BCN_FLUSH_DEAD);
	for (size_t i = 0; i < sizeof(retry) / sizeof(retry[0]); i++)
		assert_int_equal(bcn_flusher_fate(retry[i]), BCN_FLUSH_RETRY);
}

/* Damages a real frame in several ways; each must be judged dead. */
static void test_damaged_frames_are_dead(void **state)
{
	const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder b;
	struct bcn_record r;
	struct bcn_frame fr;
	struct bcn_buf w;
	size_t used;
	int rc;

	bcn_buf_init(&w, 1 << 20);
	bcn_frame_init(&fr);
	assert_int_equal(bcn_frame_builder_init(&b, &lim, 1), 0);
	bcn_record_init(&r, BCN_REC_IO);
	r.t = 1700000000000000000ll;
	r.u.io.count = 1;
	assert_int_equal(bcn_frame_builder_add(&b, &r), 0);
	assert_int_equal(bcn_frame_builder_finish(&b, "cn1", 1, &w), 0);
	assert_int_equal(bcn_frame_open(&fr, w.data, w.len, &lim, &used), 0);

	rc = bcn_frame_open(&fr, w.data, w.len - 1, &lim, &used);   /* cut */
	assert_int_equal(bcn_flusher_fate(rc), BCN_FLUSH_DEAD);
	w.data[w.len - 1] ^= 0x55;                                   /* checksum */
	rc = bcn_frame_open(&fr, w.data, w.len, &lim, &used);
	assert_int_equal(rc, -BCN_ECHECKSUM);
	assert_int_equal(bcn_flusher_fate(rc), BCN_FLUSH_DEAD);
	w.data[0] = 'X';                                             /* magic */
	rc = bcn_frame_open(&fr, w.data, w.len, &lim, &used);
	assert_int_equal(bcn_flusher_fate(rc), BCN_FLUSH_DEAD);
	bcn_frame_free(&fr);
	bcn_frame_builder_free(&b);
	bcn_buf_free(&w);
}

static void test_limits_from_config(void **state)
{
	struct bcn_logsrv_config cfg;
	struct bcn_frame_limits lim;

	memset(&cfg, 0, sizeof(cfg));
	cfg.max_frame = 1 << 20;
	cfg.max_raw = 4 << 20;
	cfg.max_records = 1000;
	cfg.max_ratio = 128;
	cfg.record_max_age_ms = 7 * 86400000ll;
	cfg.record_max_ahead_ms = 3600000;
	bcn_logsrv_frame_limits(&cfg, true, &lim);
	assert_int_equal(lim.max_body, 1 << 20);
	assert_int_equal(lim.max_raw, 4 << 20);
	assert_int_equal(lim.max_records, 1000);
	assert_int_equal(lim.max_ratio, 128);
	assert_true(lim.max_age_ns == 7 * 86400000ll * 1000000);
	assert_true(lim.max_ahead_ns == 3600000ll * 1000000);
	/* the flusher decodes accepted frames whatever their age */
	bcn_logsrv_frame_limits(&cfg, false, &lim);
	assert_int_equal(lim.max_ratio, 128);
	assert_true(lim.max_age_ns == 0 && lim.max_ahead_ns == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fate_table),
		cmocka_unit_test(test_damaged_frames_are_dead),
		cmocka_unit_test(test_limits_from_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
