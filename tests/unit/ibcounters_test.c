/* Tests of beacon-swd's parsers (collectors/switch/ibcounters.c) and
 * target syntax (swd.c): golden values over every real sysfs and
 * perfquery fixture in tests/data/ib (the facts of their EXPECTED.md),
 * the regular and old-named perfquery forms, malformed input, the
 * counter kinds and the record filling (4-byte words to bytes). */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/switch/ibcounters.h"
#include "collectors/switch/swd.h"
#include "common/buf.h"
#include "collectors/runtime/counter.h"
#include "common/error.h"

#define IB_DATA BCN_TEST_DATA "/ib"
#define SYSFS_NE IB_DATA "/sysfs/node_exporter/sys/class/infiniband"
#define SYSFS_PF IB_DATA "/sysfs/prometheus-procfs/sys/class/infiniband"
#define PQ_DIR IB_DATA "/perfquery/perfquery"
#define PQ_ERR_DIR IB_DATA "/perfquery/perfquery-rcv-error"
#define XD BCN_IB_XMIT_DATA
#define RD BCN_IB_RCV_DATA
#define XP BCN_IB_XMIT_PKTS
#define RP BCN_IB_RCV_PKTS
#define XW BCN_IB_XMIT_WAIT
#define ERR(e) (BCN_IB_ERRORS + BCN_PE_##e)
#define EXT(i) (BCN_IB_NCOUNTERS + (i))

/* The values of one port directory as the pure parsers read them. */
struct port_vals {
	uint64_t v[BCN_IB_NVALUES];
	uint32_t present;
	unsigned files, unrecorded, no_pma;
};

static void load_file(const char *path, struct bcn_buf *b)
{
	bcn_buf_init(b, 1 << 20);
	if (bcn_buf_read_file(b, path))
		fail_msg("cannot read %s", path);
}

/* Parses every file of dir (counters/ or counters_ext/) into pv. */
static void load_counter_dir(const char *dir, bool ext, struct port_vals *pv)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[1024];
		struct bcn_buf b;
		uint64_t v;
		int i, rc;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		load_file(path, &b);
		pv->files++;
		rc = bcn_ib_sysfs_parse((const char *)b.data, b.len, &v);
		if (rc) {
			/* only adapters without a PMA write non-numbers */
			assert_int_equal(rc, -BCN_ESYNTAX);
			assert_memory_equal(b.data, "N/A (no PMA)", 12);
			pv->no_pma++;
		} else {
			i = bcn_ib_sysfs_counter(e->d_name, ext);
			if (i < 0) {
				pv->unrecorded++;
			} else {
				assert_true(i < BCN_IB_NVALUES);
				assert_false(pv->present & (1u << i));
				pv->v[i] = v;
				pv->present |= 1u << i;
			}
		}
		bcn_buf_free(&b);
	}
	closedir(d);
}

static void load_port(const char *tree, const char *hca, unsigned port,
		      struct port_vals *pv)
{
	char dir[1024];

	memset(pv, 0, sizeof(*pv));
	snprintf(dir, sizeof(dir), "%s/%s/ports/%u/counters", tree, hca, port);
	load_counter_dir(dir, false, pv);
	snprintf(dir, sizeof(dir), "%s/%s/ports/%u/counters_ext", tree, hca,
		 port);
	load_counter_dir(dir, true, pv);
}

/* The record fields of a port's raw values taken as deltas from zero. */
static void as_record(const struct port_vals *pv, struct bcn_rec_port *p)
{
	memset(p, 0, sizeof(*p));
	bcn_ib_fill_record(p, pv->v);
}

/* prometheus/procfs tree: EXPECTED.md values (bytes are words x 4). */
static void test_sysfs_procfs(void **state)
{
	struct port_vals pv;
	struct bcn_rec_port p;
	const uint32_t all = (1u << BCN_IB_NCOUNTERS) - 1;

	(void)state;
	load_port(SYSFS_PF, "mlx4_0", 1, &pv);
	assert_int_equal(pv.present, all);
	assert_int_equal(pv.files, 17);
	as_record(&pv, &p);
	assert_int_equal(p.rcv_bytes, 8884894436u);
	assert_int_equal(p.xmit_bytes, 106036453180u);
	assert_int_equal(p.rcv_pkts, 87169372);
	assert_int_equal(p.xmit_pkts, 85734114);
	assert_int_equal(p.xmit_wait, 3599);    /* not scaled */
	for (unsigned e = 0; e < BCN_PE_MAX; e++)
		assert_int_equal(p.errors[e], 0);

	load_port(SYSFS_PF, "mlx4_0", 2, &pv);
	assert_int_equal(pv.present, all);
	as_record(&pv, &p);
	assert_int_equal(p.rcv_bytes, 9841747136u);
	assert_int_equal(p.xmit_bytes, 106161427560u);
	assert_int_equal(p.xmit_wait, 3846);

	load_port(SYSFS_PF, "hfi1_0", 1, &pv);
	assert_int_equal(pv.present, all);
	as_record(&pv, &p);
	assert_int_equal(p.rcv_bytes, 1380366808104u);
	assert_int_equal(p.xmit_bytes, 1094233306172u);
	assert_int_equal(p.rcv_pkts, 638036947);
	assert_int_equal(p.xmit_pkts, 568318856);

	/* mlx5_0 also has unicast/multicast files, not recorded */
	load_port(SYSFS_PF, "mlx5_0", 1, &pv);
	assert_int_equal(pv.present, all);
	assert_true(pv.unrecorded >= 2);
	as_record(&pv, &p);
	assert_int_equal(p.rcv_bytes, 72505381512u);
	assert_int_equal(p.xmit_bytes, 11523046035392u);
	assert_int_equal(pv.no_pma, 0);
}

/* node_exporter tree: a saturated 32-bit counter, counters_ext, a
 * reduced counter set, an adapter without a PMA. */
static void test_sysfs_node_exporter(void **state)
{
	struct port_vals pv;
	struct bcn_rec_port p;
	uint64_t d;

	(void)state;
	load_port(SYSFS_NE, "mlx4_0", 1, &pv);
	assert_int_equal(pv.v[RD] * 4, 18527668);
	assert_int_equal(pv.v[XD] * 4, 14933760);
	assert_int_equal(pv.v[RP], 6825908347u);
	assert_int_equal(pv.v[XP], 6235865);
	assert_int_equal(pv.v[ERR(XMIT_DISCARDS)], 5);
	/* PortXmitWait stuck at 2^32 - 1: saturated */
	assert_int_equal(pv.v[XW], 4294967295u);
	assert_int_equal(bcn_counter_delta(bcn_ib_sysfs_kind(XW), 4000000000u,
					   pv.v[XW], &d),
			 BCN_COUNTER_F_SATURATED);
	assert_int_equal(d, 294967295);
	assert_int_equal(bcn_counter_delta(bcn_ib_sysfs_kind(XW), pv.v[XW],
					   pv.v[XW], &d),
			 BCN_COUNTER_F_SATURATED);
	assert_int_equal(d, 0);
	/* the legacy 64-bit copies: data x4 too, packets read 0 */
	assert_int_equal(pv.v[EXT(RD)] * 4, 18527668);
	assert_int_equal(pv.v[EXT(XD)] * 4, 14933760);
	assert_true(pv.present & (1u << EXT(RP)));
	assert_int_equal(pv.v[EXT(RP)], 0);
	assert_int_equal(pv.v[EXT(XP)], 0);
	/* not recorded: unicast/multicast packets in both directories,
	 * port_rcv_discards in counters/ */
	assert_int_equal(pv.unrecorded, 5 + 4);

	/* port 2: only a reduced counters/ set */
	load_port(SYSFS_NE, "mlx4_0", 2, &pv);
	assert_int_equal(pv.present & ((1u << BCN_IB_NCOUNTERS) - 1),
			 (1u << XD) | (1u << RD) | (1u << ERR(LINK_DOWNED)) |
			 (1u << ERR(LINK_ERROR_RECOVERY)));
	as_record(&pv, &p);
	assert_int_equal(p.rcv_bytes, 0);

	/* i40iw0: every counter file says "N/A (no PMA)" */
	load_port(SYSFS_NE, "i40iw0", 1, &pv);
	assert_int_equal(pv.files, 17);
	assert_int_equal(pv.no_pma, 17);
	assert_int_equal(pv.present, 0);
}

struct sysfs_case {
	const char *in;
	int rc;
	uint64_t v;
};

static void test_sysfs_parse_cases(void **state)
{
	static const struct sysfs_case cases[] = {
		{ "0\n", 0, 0 },
		{ "3599\n", 0, 3599 },
		{ "4294967295\n", 0, 4294967295u },
		{ "18446744073709551615\n", 0, UINT64_MAX },
		{ "18446744073709551616\n", -BCN_ERANGE, 0 },
		{ "42", 0, 42 },
		{ "42 \t\r\n\n", 0, 42 },
		{ "", -BCN_ESYNTAX, 0 },
		{ "\n", -BCN_ESYNTAX, 0 },
		{ " 42\n", -BCN_ESYNTAX, 0 },
		{ "-1\n", -BCN_ESYNTAX, 0 },
		{ "0x10\n", -BCN_ESYNTAX, 0 },
		{ "4 2\n", -BCN_ESYNTAX, 0 },
		{ "N/A (no PMA)\n", -BCN_ESYNTAX, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 7;
		int rc = bcn_ib_sysfs_parse(cases[i].in, strlen(cases[i].in),
					    &v);

		assert_int_equal(rc, cases[i].rc);
		if (!rc)
			assert_true(v == cases[i].v);
	}
	/* a NUL in the buffer is not a digit */
	{
		uint64_t v;

		assert_int_equal(bcn_ib_sysfs_parse("1\0002", 3, &v),
				 -BCN_ESYNTAX);
	}
}

static void test_sysfs_names(void **state)
{
	(void)state;
	assert_int_equal(bcn_ib_sysfs_counter("port_xmit_data", false), XD);
	assert_int_equal(bcn_ib_sysfs_counter("port_rcv_packets", false), RP);
	assert_int_equal(bcn_ib_sysfs_counter("VL15_dropped", false),
			 ERR(VL15_DROPPED));
	assert_int_equal(bcn_ib_sysfs_counter("symbol_error", false),
			 ERR(SYMBOL_ERROR));
	assert_int_equal(bcn_ib_sysfs_counter("port_xmit_data_64", true),
			 EXT(XD));
	assert_int_equal(bcn_ib_sysfs_counter("port_rcv_packets_64", true),
			 EXT(RP));
	assert_int_equal(bcn_ib_sysfs_counter("port_xmit_data_64", false), -1);
	assert_int_equal(bcn_ib_sysfs_counter("port_xmit_data", true), -1);
	assert_int_equal(bcn_ib_sysfs_counter("unicast_rcv_packets", false), -1);
	assert_int_equal(bcn_ib_sysfs_counter("port_rcv_discards", false), -1);
	/* every error counter maps to its record field, whose name is the
	 * sysfs file's */
	for (unsigned e = 0; e < BCN_PE_MAX; e++) {
		const char *n = bcn_ib_counters[BCN_IB_ERRORS + e].sysfs;

		assert_int_equal(bcn_ib_sysfs_counter(n, false),
				 BCN_IB_ERRORS + (int)e);
		assert_string_equal(n, bcn_port_err_names[e]);
	}
	/* kinds: PortCounters widths, saturating; counters_ext 64-bit */
	assert_int_equal(bcn_ib_sysfs_kind(XD), BCN_COUNTER_SAT32);
	assert_int_equal(bcn_ib_sysfs_kind(ERR(SYMBOL_ERROR)),
			 BCN_COUNTER_SAT(16));
	assert_int_equal(bcn_ib_sysfs_kind(ERR(LINK_DOWNED)),
			 BCN_COUNTER_SAT(8));
	assert_int_equal(bcn_ib_sysfs_kind(ERR(LOCAL_LINK_INTEGRITY_ERRORS)),
			 BCN_COUNTER_SAT(4));
	assert_int_equal(bcn_ib_sysfs_kind(EXT(XD)), BCN_COUNTER_U64);
	assert_int_equal(bcn_ib_perfquery_kind(XD, true), BCN_COUNTER_U64);
	assert_int_equal(bcn_ib_perfquery_kind(ERR(SYMBOL_ERROR), true),
			 BCN_COUNTER_U64);
	assert_int_equal(bcn_ib_perfquery_kind(XD, false), BCN_COUNTER_SAT32);
	assert_int_equal(bcn_ib_perfquery_kind(ERR(LINK_DOWNED), false),
			 BCN_COUNTER_SAT(8));
}

static size_t parse_file(const char *path, struct bcn_ib_pq_port *out,
			 uint64_t *skipped)
{
	struct bcn_buf b;
	size_t n = 99;

	load_file(path, &b);
	assert_int_equal(bcn_ib_perfquery_parse((const char *)b.data, b.len,
						out, BCN_IB_PQ_MAX_PORTS, &n,
						skipped), 0);
	bcn_buf_free(&b);
	return n;
}

static struct bcn_ib_pq_port pq[BCN_IB_PQ_MAX_PORTS];

/* Every perfquery -x fixture: EXPECTED.md values. */
static void test_perfquery_extended(void **state)
{
	const uint32_t all = (1u << BCN_IB_NCOUNTERS) - 1;
	struct bcn_rec_port p;
	uint64_t skipped;

	(void)state;
	assert_int_equal(parse_file(PQ_DIR "/0x7cfe9003009ce5b0.out", pq,
				    &skipped), 2);
	assert_int_equal(skipped, 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pq[i].lid, 1719);
		assert_int_equal(pq[i].port, (uint64_t)i + 1);
		assert_true(pq[i].extended);
		assert_int_equal(pq[i].present, all);
	}
	bcn_ib_fill_record(&p, pq[0].v);
	assert_int_equal(p.rcv_bytes, 49116115103004u);
	assert_int_equal(p.xmit_bytes, 36298026860928u * 4);
	assert_int_equal(p.rcv_pkts, 32262508468u);
	assert_int_equal(p.xmit_pkts, 101733204203u);
	assert_int_equal(p.xmit_wait, 22730501);
	bcn_ib_fill_record(&p, pq[1].v);
	assert_int_equal(p.rcv_bytes, 156315219973512u);
	assert_int_equal(p.rcv_pkts, 93660802641u);
	assert_int_equal(p.xmit_wait, 36510964);

	assert_int_equal(parse_file(PQ_DIR "/0x506b4b03005c2740.out", pq,
				    &skipped), 1);
	assert_int_equal(skipped, 0);
	assert_int_equal(pq[0].lid, 2052);
	bcn_ib_fill_record(&p, pq[0].v);
	assert_int_equal(p.rcv_bytes, 715049367846516u);
	assert_int_equal(p.rcv_pkts, 387654829341u);

	/* HCAs queried the same way */
	assert_int_equal(parse_file(PQ_DIR "/0x7cfe9003003b4b96.out", pq,
				    &skipped), 1);
	assert_int_equal(pq[0].lid, 133);
	bcn_ib_fill_record(&p, pq[0].v);
	assert_int_equal(p.rcv_bytes, 148901607811540u);
	assert_int_equal(parse_file(PQ_DIR "/0x7cfe9003003b4bde.out", pq,
				    &skipped), 1);
	assert_int_equal(pq[0].lid, 134);
	bcn_ib_fill_record(&p, pq[0].v);
	assert_int_equal(p.rcv_bytes, 39009938353200u);

	/* an empty output: no port, nothing malformed */
	assert_int_equal(parse_file(PQ_DIR "/0x506b4b0300cc02a6.out", pq,
				    &skipped), 0);
	assert_int_equal(skipped, 0);
}

/* perfquery -E blocks (PortRcvErrorDetails) are not port counters. */
static void test_perfquery_rcv_error(void **state)
{
	static const char *const files[] = {
		"0x506b4b03005c2740-1.out", "0x7cfe9003003b4b96-1.out",
		"0x7cfe9003003b4bde-1.out", "0x7cfe9003009ce5b0-1.out",
		"0x7cfe9003009ce5b0-2.out",
	};
	char path[512];
	uint64_t skipped;

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), PQ_ERR_DIR "/%s", files[i]);
		assert_int_equal(parse_file(path, pq, &skipped), 0);
		assert_int_equal(skipped, 0);
	}
}

/* The regular (32-bit PortCounters) form, in both field spellings. The
 * fixtures hold no real output of these forms: the texts are built from
 * the layout of the -x fixtures with the regular header, the field set
 * PortCounters has, and the older short names. */
static void test_perfquery_regular(void **state)
{
	static const char reg[] =
		"# Port counters: Lid 936 port 1 (CapMask: 0x1400)\n"
		"PortSelect:......................1\n"
		"CounterSelect:...................0x1b01\n"
		"SymbolErrorCounter:..............65535\n"
		"LinkErrorRecoveryCounter:........255\n"
		"LinkDownedCounter:...............3\n"
		"PortRcvErrors:...................0\n"
		"PortXmitData:....................4294967295\n"
		"PortRcvData:.....................2411533950\n"
		"PortXmitPkts:....................22945597\n"
		"PortRcvPkts:.....................26264095\n"
		"PortXmitWait:....................7\n";
	static const char old[] =
		"# Port counters: Lid 936 port 1\n"
		"PortSelect:......................1\n"
		"CounterSelect:...................0x0000\n"
		"SymbolErrors:....................0\n"
		"LinkRecovers:....................0\n"
		"LinkDowned:......................0\n"
		"RcvErrors:.......................0\n"
		"RcvRemotePhysErrors:.............0\n"
		"RcvSwRelayErrors:................0\n"
		"XmtDiscards:.....................0\n"
		"XmtConstraintErrors:.............0\n"
		"RcvConstraintErrors:.............0\n"
		"LinkIntegrityErrors:.............0\n"
		"ExcBufOverrunErrors:.............0\n"
		"VL15Dropped:.....................0\n"
		"XmtData:.........................905972985\n"
		"RcvData:.........................2411533950\n"
		"XmtPkts:.........................22945597\n"
		"RcvPkts:.........................26264095\n";
	uint64_t skipped, d;
	size_t n;

	(void)state;
	assert_int_equal(bcn_ib_perfquery_parse(reg, sizeof(reg) - 1, pq, 4,
						&n, &skipped), 0);
	assert_int_equal(n, 1);
	assert_int_equal(skipped, 0);
	assert_false(pq[0].extended);
	assert_int_equal(pq[0].lid, 936);
	assert_int_equal(pq[0].port, 1);
	assert_int_equal(pq[0].v[XD], 4294967295u);
	assert_int_equal(pq[0].v[ERR(SYMBOL_ERROR)], 65535);
	/* both at the top of their PortCounters width: saturated */
	assert_int_equal(bcn_counter_delta(bcn_ib_perfquery_kind(XD, false),
					   4294967000u, pq[0].v[XD], &d),
			 BCN_COUNTER_F_SATURATED);
	assert_int_equal(bcn_counter_delta(
				 bcn_ib_perfquery_kind(ERR(SYMBOL_ERROR), false),
				 65535, pq[0].v[ERR(SYMBOL_ERROR)], &d),
			 BCN_COUNTER_F_SATURATED);
	assert_int_equal(bcn_counter_delta(
				 bcn_ib_perfquery_kind(ERR(LINK_ERROR_RECOVERY),
						       false),
				 200, pq[0].v[ERR(LINK_ERROR_RECOVERY)], &d),
			 BCN_COUNTER_F_SATURATED);
	assert_int_equal(pq[0].present,
			 (1u << XD) | (1u << RD) | (1u << XP) | (1u << RP) |
			 (1u << XW) | (1u << ERR(SYMBOL_ERROR)) |
			 (1u << ERR(LINK_ERROR_RECOVERY)) |
			 (1u << ERR(LINK_DOWNED)) | (1u << ERR(RCV_ERRORS)));

	assert_int_equal(bcn_ib_perfquery_parse(old, sizeof(old) - 1, pq, 4,
						&n, &skipped), 0);
	assert_int_equal(n, 1);
	assert_int_equal(skipped, 0);
	assert_int_equal(pq[0].v[XD], 905972985);
	assert_int_equal(pq[0].v[RP], 26264095);
	assert_int_equal(pq[0].present, (1u << BCN_IB_NCOUNTERS) - 1 -
			 (1u << XW));
}

struct pq_case {
	const char *in;
	size_t ports;
	uint64_t skipped;
	uint64_t port0, xd0;
};

static void test_perfquery_cases(void **state)
{
	static const struct pq_case cases[] = {
		{ "", 0, 0, 0, 0 },
		{ "\n\n", 0, 0, 0, 0 },
		/* fields before any block */
		{ "PortXmitData:....1\n", 0, 1, 0, 0 },
		/* -a: all ports summed */
		{ "# Port counters: Lid 5 all ports\nPortSelect:....255\n"
		  "PortXmitData:....9\n", 1, 0, 255, 9 },
		/* the header's port when PortSelect is missing */
		{ "# Port extended counters: Lid 5 port 7\nPortXmitData:.3\n",
		  1, 0, 7, 3 },
		/* CRLF line ends */
		{ "# Port counters: Lid 5 port 2\r\nPortXmitData:....4\r\n",
		  1, 0, 2, 4 },
		/* malformed: no colon, bad number, repeat, negative, huge */
		{ "# Port counters: Lid 5 port 2\nPortXmitData 4\n"
		  "PortRcvData:....x\nPortXmitPkts:...1\nPortXmitPkts:...2\n"
		  "PortRcvPkts:....-1\n"
		  "PortXmitWait:...18446744073709551616\n", 1, 5, 2, 0 },
		/* header without a lid */
		{ "# Port counters: port 2\nPortXmitData:....4\n", 0, 1, 0, 0 },
		/* other blocks are passed over, with their fields */
		{ "# PortRcvErrorDetails counters: Lid 1 port 1\n"
		  "PortLocalPhysicalErrors:...0\nbogus\n"
		  "# Port counters: Lid 1 port 1\nPortXmitData:...6\n",
		  1, 0, 1, 6 },
		/* unknown fields are fine, no dots is fine */
		{ "# Port counters: Lid 1 port 3\nQP1Dropped:...0\n"
		  "PortXmitData:12\n", 1, 0, 3, 12 },
		/* an empty value, an empty name */
		{ "# Port counters: Lid 1 port 3\nPortXmitData:...\n:5\n",
		  1, 2, 3, 0 },
		/* no final newline */
		{ "# Port counters: Lid 1 port 3\nPortXmitData:...77", 1, 0, 3,
		  77 },
	};
	uint64_t skipped;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pq_case *c = &cases[i];

		assert_int_equal(bcn_ib_perfquery_parse(c->in, strlen(c->in), pq,
							8, &n, &skipped), 0);
		if (n != c->ports || skipped != c->skipped)
			print_error("case %zu: %zu ports %llu skipped\n", i, n,
				    (unsigned long long)skipped);
		assert_int_equal(n, c->ports);
		assert_int_equal(skipped, c->skipped);
		if (n) {
			assert_int_equal(pq[0].port, c->port0);
			assert_int_equal(pq[0].v[XD], c->xd0);
		}
	}
}

static void test_perfquery_full(void **state)
{
	static char text[4096];
	size_t len = 0, n;

	(void)state;
	for (int p = 1; p <= 5; p++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"# Port counters: Lid 9 port %d\n"
					"PortXmitData:....%d\n", p, p * 10);
	assert_int_equal(bcn_ib_perfquery_parse(text, len, pq, 3, &n, NULL),
			 -BCN_EFULL);
	assert_int_equal(n, 3);
	assert_int_equal(pq[2].port, 3);
	assert_int_equal(pq[2].v[XD], 30);
	assert_int_equal(bcn_ib_perfquery_parse(text, len, pq, 5, &n, NULL), 0);
	assert_int_equal(n, 5);
}

static void test_fill_record(void **state)
{
	uint64_t d[BCN_IB_NCOUNTERS] = { 0 };
	struct bcn_rec_port p;

	(void)state;
	d[XD] = 10;
	d[RD] = UINT64_MAX / 2;         /* x4 saturates */
	d[XP] = 3;
	d[RP] = 4;
	d[XW] = 5;
	d[ERR(VL15_DROPPED)] = 6;
	d[ERR(SYMBOL_ERROR)] = 7;
	bcn_ib_fill_record(&p, d);
	assert_int_equal(p.xmit_bytes, 40);
	assert_true(p.rcv_bytes == UINT64_MAX);
	assert_int_equal(p.xmit_pkts, 3);
	assert_int_equal(p.rcv_pkts, 4);
	assert_int_equal(p.xmit_wait, 5);
	assert_int_equal(p.errors[BCN_PE_VL15_DROPPED], 6);
	assert_int_equal(p.errors[BCN_PE_SYMBOL_ERROR], 7);
	assert_int_equal(p.errors[BCN_PE_LINK_DOWNED], 0);
}

struct target_case {
	const char *in;
	int rc;
	const char *sw, *id, *ports;
	bool guid;
};

static void test_targets(void **state)
{
	static const struct target_case cases[] = {
		{ "1719", 0, "lid1719", "1719", "", false },
		{ "1719:1,2", 0, "lid1719", "1719", "1,2", false },
		{ "0x7cfe9003009ce5b0", 0, "0x7cfe9003009ce5b0",
		  "0x7cfe9003009ce5b0", "", true },
		{ "0x7CFE9003009CE5B0:36", 0, "0x7cfe9003009ce5b0",
		  "0x7cfe9003009ce5b0", "36", true },
		{ "0x1", 0, "0x0000000000000001", "0x0000000000000001", "",
		  true },
		{ "leaf-01=2052:1,2,3", 0, "leaf-01", "2052", "1,2,3", false },
		{ "spine.a=0x506b4b03005c2740", 0, "spine.a",
		  "0x506b4b03005c2740", "", true },
		{ "49151", 0, "lid49151", "49151", "", false },
		{ "49152", -BCN_ERANGE, NULL, NULL, NULL, false },
		{ "0", -BCN_ERANGE, NULL, NULL, NULL, false },
		{ "123456", -BCN_ERANGE, NULL, NULL, NULL, false },
		{ "0x7cfe9003009ce5b01", -BCN_ERANGE, NULL, NULL, NULL, false },
		{ "0xg1", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "0x", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "lid5", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "5:", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "5:1,", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "5:,1", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "5:1-36", 0, "lid5", "5", "1-36", false },
		{ "5:7", 0, "lid5", "5", "7", false },
		{ "5:3-1", -BCN_ERANGE, NULL, NULL, NULL, false },
		{ "5:3-3", -BCN_ERANGE, NULL, NULL, NULL, false },
		{ "5:1-3,4", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "5:1-3-4", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "5:1-", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "5:-1", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "5:1,,2", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "5:255", -BCN_ERANGE, NULL, NULL, NULL, false },
		{ "5:1;rm", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "=5", -BCN_ESYNTAX, NULL, NULL, NULL, false },
		{ "a b=5", -BCN_ESYNTAX, NULL, NULL, NULL, false },
	};
	struct bcn_swd_target t;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct target_case *c = &cases[i];
		int rc = bcn_swd_target_parse(c->in, &t);

		if (rc != c->rc)
			print_error("case %zu '%s': %d\n", i, c->in, rc);
		assert_int_equal(rc, c->rc);
		if (rc)
			continue;
		assert_string_equal(t.sw, c->sw);
		assert_string_equal(t.id, c->id);
		assert_string_equal(t.ports, c->ports);
		assert_int_equal(t.guid, c->guid);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysfs_procfs),
		cmocka_unit_test(test_sysfs_node_exporter),
		cmocka_unit_test(test_sysfs_parse_cases),
		cmocka_unit_test(test_sysfs_names),
		cmocka_unit_test(test_perfquery_extended),
		cmocka_unit_test(test_perfquery_rcv_error),
		cmocka_unit_test(test_perfquery_regular),
		cmocka_unit_test(test_perfquery_cases),
		cmocka_unit_test(test_perfquery_full),
		cmocka_unit_test(test_fill_record),
		cmocka_unit_test(test_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
