/* Tests of the PerfMgt attribute decoders (collectors/switch/pmamad.c):
 * buffers laid out by libibmad's own field table (mad_set_field,
 * mad_set_field64: the InfiniBand specification's offsets as
 * infiniband-diags uses them) with distinct values in every field must
 * decode to exactly those values; widths at their top; short buffers,
 * answers for another port, capability bits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mad.h>

#include "collectors/switch/pmamad.h"
#include "common/error.h"

#define ERR(e) (BCN_IB_ERRORS + BCN_PE_##e)

/* libibmad's field of each counter, with a value using its full width. */
static const struct {
	enum MAD_FIELDS f;
	unsigned ctr;
	uint32_t val;
} pc_map[] = {
	{ IB_PC_ERR_SYM_F, ERR(SYMBOL_ERROR), 0xfedc },
	{ IB_PC_LINK_RECOVERS_F, ERR(LINK_ERROR_RECOVERY), 0xa1 },
	{ IB_PC_LINK_DOWNED_F, ERR(LINK_DOWNED), 0xb2 },
	{ IB_PC_ERR_RCV_F, ERR(RCV_ERRORS), 0x1234 },
	{ IB_PC_ERR_PHYSRCV_F, ERR(RCV_REMOTE_PHYSICAL_ERRORS), 0x2345 },
	{ IB_PC_ERR_SWITCH_REL_F, ERR(RCV_SWITCH_RELAY_ERRORS), 0x3456 },
	{ IB_PC_XMT_DISCARDS_F, ERR(XMIT_DISCARDS), 0x4567 },
	{ IB_PC_ERR_XMTCONSTR_F, ERR(XMIT_CONSTRAINT_ERRORS), 0xc3 },
	{ IB_PC_ERR_RCVCONSTR_F, ERR(RCV_CONSTRAINT_ERRORS), 0xd4 },
	{ IB_PC_ERR_LOCALINTEG_F, ERR(LOCAL_LINK_INTEGRITY_ERRORS), 0x9 },
	{ IB_PC_ERR_EXCESS_OVR_F, ERR(EXCESSIVE_BUFFER_OVERRUN_ERRORS), 0x6 },
	{ IB_PC_VL15_DROPPED_F, ERR(VL15_DROPPED), 0x5678 },
	{ IB_PC_XMT_BYTES_F, BCN_IB_XMIT_DATA, 0x89abcdef },
	{ IB_PC_RCV_BYTES_F, BCN_IB_RCV_DATA, 0x76543210 },
	{ IB_PC_XMT_PKTS_F, BCN_IB_XMIT_PKTS, 0xffffffff },
	{ IB_PC_RCV_PKTS_F, BCN_IB_RCV_PKTS, 0x10203040 },
	{ IB_PC_XMT_WAIT_F, BCN_IB_XMIT_WAIT, 0xdeadbeef },
};
#define NMAP (sizeof(pc_map) / sizeof(pc_map[0]))

static void test_pc_layout(void **state)
{
	uint8_t buf[BCN_PMA_DATA_LEN] = { 0 };
	uint64_t v[BCN_IB_NCOUNTERS];

	(void)state;
	assert_int_equal(NMAP, BCN_IB_NCOUNTERS);       /* every counter */
	mad_set_field(buf, 0, IB_PC_PORT_SELECT_F, 17);
	mad_set_field(buf, 0, IB_PC_COUNTER_SELECT_F, 0xffff);
	for (size_t i = 0; i < NMAP; i++)
		mad_set_field(buf, 0, pc_map[i].f, pc_map[i].val);
	memset(v, 0x5a, sizeof(v));
	assert_int_equal(bcn_pma_pc_parse(buf, sizeof(buf), 17, v), 0);
	for (size_t i = 0; i < NMAP; i++) {
		if (v[pc_map[i].ctr] != pc_map[i].val)
			fail_msg("field %d: got 0x%llx, want 0x%x", pc_map[i].f,
				 (unsigned long long)v[pc_map[i].ctr],
				 pc_map[i].val);
	}
	/* one field at a time: no field leaks into another */
	for (size_t i = 0; i < NMAP; i++) {
		memset(buf, 0, sizeof(buf));
		mad_set_field(buf, 0, IB_PC_PORT_SELECT_F, 3);
		mad_set_field(buf, 0, pc_map[i].f, pc_map[i].val);
		assert_int_equal(bcn_pma_pc_parse(buf, BCN_PMA_PC_LEN, 3, v), 0);
		for (size_t k = 0; k < BCN_IB_NCOUNTERS; k++)
			assert_int_equal(v[k], k == pc_map[i].ctr ?
					 pc_map[i].val : 0);
	}
}

static void test_pcx_layout(void **state)
{
	static const enum MAD_FIELDS f[] = { IB_PC_EXT_XMT_BYTES_F,
		IB_PC_EXT_RCV_BYTES_F, IB_PC_EXT_XMT_PKTS_F,
		IB_PC_EXT_RCV_PKTS_F };
	static const uint64_t val[] = { 0xffffffffffffffffull,
		12345678901234ull, 0x0102030405060708ull, 1ull << 32 };
	uint8_t buf[BCN_PMA_DATA_LEN] = { 0 };
	uint64_t v[BCN_IB_NCOUNTERS];

	(void)state;
	mad_set_field(buf, 0, IB_PC_EXT_PORT_SELECT_F, 36);
	for (size_t i = 0; i < 4; i++)
		mad_set_field64(buf, 0, f[i], val[i]);
	/* the unicast and multicast counters that follow are not read */
	mad_set_field64(buf, 0, IB_PC_EXT_XMT_UPKTS_F, 99);
	mad_set_field64(buf, 0, IB_PC_EXT_RCV_MPKTS_F, 98);
	for (size_t i = 0; i < BCN_IB_NCOUNTERS; i++)
		v[i] = 7;
	assert_int_equal(bcn_pma_pcx_parse(buf, sizeof(buf), 36, v), 0);
	assert_int_equal(v[BCN_IB_XMIT_DATA], val[0]);
	assert_int_equal(v[BCN_IB_RCV_DATA], val[1]);
	assert_int_equal(v[BCN_IB_XMIT_PKTS], val[2]);
	assert_int_equal(v[BCN_IB_RCV_PKTS], val[3]);
	for (size_t i = BCN_IB_XMIT_WAIT; i < BCN_IB_NCOUNTERS; i++)
		assert_int_equal(v[i], 7);      /* left alone */
}

static void test_cpi(void **state)
{
	uint8_t buf[BCN_PMA_DATA_LEN] = { 0 };
	uint16_t cap = 0;

	(void)state;
	mad_set_field(buf, 0, IB_CPI_CAPMASK_F, 0x1200);
	assert_int_equal(bcn_pma_cpi_parse(buf, sizeof(buf), &cap), 0);
	assert_int_equal(cap, 0x1200);
	assert_true(bcn_pma_ext_supported(cap));
	assert_true(bcn_pma_ext_supported(BCN_PMA_CAP_EXT_NOIETF));
	assert_false(bcn_pma_ext_supported(0x1000 | 0x0100));
	assert_int_equal(bcn_pma_cpi_parse(buf, BCN_PMA_CPI_LEN - 1, &cap),
			 -BCN_ETRUNC);
}

static void test_bad(void **state)
{
	uint8_t buf[BCN_PMA_DATA_LEN] = { 0 };
	uint64_t v[BCN_IB_NCOUNTERS];

	(void)state;
	buf[1] = 5;
	assert_int_equal(bcn_pma_pc_parse(buf, BCN_PMA_PC_LEN - 1, 5, v),
			 -BCN_ETRUNC);
	assert_int_equal(bcn_pma_pcx_parse(buf, BCN_PMA_PCX_LEN - 1, 5, v),
			 -BCN_ETRUNC);
	assert_int_equal(bcn_pma_pc_parse(buf, sizeof(buf), 6, v),
			 -BCN_ECORRUPT);
	assert_int_equal(bcn_pma_pcx_parse(buf, sizeof(buf), 4, v),
			 -BCN_ECORRUPT);
	assert_int_equal(bcn_pma_pc_parse(buf, BCN_PMA_PC_LEN, 5, v), 0);
	assert_int_equal(bcn_pma_pcx_parse(buf, BCN_PMA_PCX_LEN, 5, v), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pc_layout),
		cmocka_unit_test(test_pcx_layout),
		cmocka_unit_test(test_cpi),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
