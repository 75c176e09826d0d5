/* Tests of the ibnetdiscover parser (collectors/switch/topofile.c): the
 * real topology and ports files of tests/data/ib/ibnetdiscover (an ibsim
 * fabric, PROVENANCE.md) give every cabled switch port of ibsim.net with
 * the right far end, both formats agree, and malformed input is refused
 * with its line number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/switch/topofile.h"
#include "common/buf.h"
#include "common/error.h"
#include "proto/record.h"

#define DIR BCN_TEST_DATA "/ib/ibnetdiscover"
#define NLINKS_MAX 64

struct links {
	struct bcn_topo_link l[NLINKS_MAX];
	size_t n;
	int stop_at;            /* return -99 at this link (1-based), 0 never */
};

static int take(void *arg, const struct bcn_topo_link *l)
{
	struct links *ls = arg;

	if (ls->n >= NLINKS_MAX)
		return -1;
	ls->l[ls->n++] = *l;
	return ls->stop_at && (int)ls->n == ls->stop_at ? -99 : 0;
}

static void parse_file(const char *path, struct links *ls)
{
	struct bcn_buf b;
	size_t line = 7;

	bcn_buf_init(&b, 1 << 20);
	if (bcn_buf_read_file(&b, path))
		fail_msg("cannot read %s", path);
	memset(ls, 0, sizeof(*ls));
	assert_int_equal(bcn_topofile_parse((const char *)b.data, b.len, take,
					    ls, &line), 0);
	assert_int_equal(line, 0);
	bcn_buf_free(&b);
}

static const struct bcn_topo_link *find(const struct links *ls,
					const char *sw_name, uint32_t port)
{
	for (size_t i = 0; i < ls->n; i++)
		if (!strcmp(ls->l[i].sw_name, sw_name) && ls->l[i].port == port)
			return &ls->l[i];
	return NULL;
}

/* The cabling of ibsim.net: switch, port, remote name, remote port. */
static const struct {
	const char *sw, *remote;
	uint32_t port, rport;
	int kind;
} cabling[] = {
	{ "leaf1", "cn001 mlx5_0", 1, 1, BCN_TOPO_HOST },
	{ "leaf1", "cn002 mlx5_0", 2, 1, BCN_TOPO_HOST },
	{ "leaf1", "spine1", 7, 1, BCN_TOPO_SWITCH },
	{ "leaf1", "spine1", 8, 2, BCN_TOPO_SWITCH },
	{ "leaf2", "cn003 mlx5_0", 1, 1, BCN_TOPO_HOST },
	{ "leaf2", "cn004 mlx5_0", 2, 1, BCN_TOPO_HOST },
	{ "leaf2", "spine1", 7, 3, BCN_TOPO_SWITCH },
	{ "spine1", "leaf1", 1, 7, BCN_TOPO_SWITCH },
	{ "spine1", "leaf1", 2, 8, BCN_TOPO_SWITCH },
	{ "spine1", "leaf2", 3, 7, BCN_TOPO_SWITCH },
	{ "spine1", "mgmt mlx5_0", 8, 1, BCN_TOPO_HOST },
};
#define NCABLES (sizeof(cabling) / sizeof(cabling[0]))

static void check_cabling(const struct links *ls)
{
	assert_int_equal(ls->n, NCABLES);
	for (size_t i = 0; i < NCABLES; i++) {
		const struct bcn_topo_link *l = find(ls, cabling[i].sw,
						     cabling[i].port);

		if (!l)
			fail_msg("%s port %u missing", cabling[i].sw,
				 cabling[i].port);
		assert_string_equal(l->remote_name, cabling[i].remote);
		assert_int_equal(l->remote_port, cabling[i].rport);
		assert_int_equal(l->remote_kind, cabling[i].kind);
		/* 4xSDR: 4 lanes of 2 Gb/s of data */
		assert_int_equal(l->rate, 1000000000ull);
	}
}

static void test_topology_file(void **state)
{
	struct links ls;
	const struct bcn_topo_link *l;

	(void)state;
	parse_file(DIR "/fabric.topo", &ls);
	check_cabling(&ls);
	l = find(&ls, "leaf1", 1);
	assert_string_equal(l->sw, "0x0000000000200000");
	assert_string_equal(l->remote, "0x0000000000100002");  /* node GUID */
	l = find(&ls, "leaf2", 7);
	assert_string_equal(l->sw, "0x0000000000200001");
	assert_string_equal(l->remote, "0x0000000000200002");
}

static void test_ports_format(void **state)
{
	struct links topo, ports;

	(void)state;
	parse_file(DIR "/fabric.ports", &ports);
	check_cabling(&ports);
	parse_file(DIR "/fabric.topo", &topo);
	for (size_t i = 0; i < topo.n; i++) {
		const struct bcn_topo_link *a = &topo.l[i];
		const struct bcn_topo_link *b = find(&ports, a->sw_name, a->port);

		assert_non_null(b);
		assert_string_equal(a->sw, b->sw);
		/* switches by node GUID in both; -p names a CA's port GUID */
		if (a->remote_kind == BCN_TOPO_SWITCH)
			assert_string_equal(a->remote, b->remote);
	}
}

static void test_rate(void **state)
{
	(void)state;
	assert_int_equal(bcn_topo_rate(4, "EDR"), 12500000000ull);
	assert_int_equal(bcn_topo_rate(0, "4xEDR"), 12500000000ull);
	assert_int_equal(bcn_topo_rate(0, "4xHDR"), 25000000000ull);
	assert_int_equal(bcn_topo_rate(1, "QDR"), 1000000000ull);
	assert_int_equal(bcn_topo_rate(0, "12xFDR10"), 15000000000ull);
	assert_int_equal(bcn_topo_rate(3, "EDR"), 0);
	assert_int_equal(bcn_topo_rate(4, "XYZ"), 0);
	assert_int_equal(bcn_topo_rate(0, "4EDR"), 0);
	assert_int_equal(bcn_topo_rate(0, "x"), 0);
}

static void expect_error_n(const char *text, size_t len, size_t at)
{
	struct links ls;
	size_t line = 0;

	memset(&ls, 0, sizeof(ls));
	assert_int_equal(bcn_topofile_parse(text, len, take, &ls, &line),
			 -BCN_ESYNTAX);
	assert_int_equal(line, at);
}

static void expect_error(const char *text, size_t at)
{
	expect_error_n(text, strlen(text), at);
}

static void test_malformed(void **state)
{
	static char longline[BCN_TOPO_LINE_MAX + 20];
	static const char head[] =
		"# c\nSwitch\t8 \"S-0000000000200001\"\t\t# \"leaf2\" lid 3\n";
	char buf[512];

	(void)state;
	/* a port before any node */
	expect_error("vendid=0x0\n[1]\t\"H-01\"[1]\n", 2);
	/* bad port numbers, ids, brackets */
	snprintf(buf, sizeof(buf), "%s[256]\t\"H-01\"[1]\n", head);
	expect_error(buf, 3);
	snprintf(buf, sizeof(buf), "%s[1]\t\"X-01\"[1]\n", head);
	expect_error(buf, 3);
	snprintf(buf, sizeof(buf), "%s[1]\t\"H-01\"[1\n", head);
	expect_error(buf, 3);
	snprintf(buf, sizeof(buf), "%s[1]\t\"H-0g\"[1]\n", head);
	expect_error(buf, 3);
	snprintf(buf, sizeof(buf), "%s[1]\t\"H-01234567890123456\"[1]\n", head);
	expect_error(buf, 3);
	/* a node header without its id */
	expect_error("\nSwitch 8\n", 2);
	expect_error("Switch x \"S-01\"\n", 1);
	/* a port after the blank line that ended its node */
	snprintf(buf, sizeof(buf), "%s\n[1]\t\"H-01\"[1]\n", head);
	expect_error(buf, 4);
	/* the ports format */
	expect_error("SW 3 7 0x01 4x SDR - SW 4 3 0x02 ( 'a' - 'b'\n", 1);
	expect_error("SW 3 7 zz 4x SDR 'a'\n", 1);
	expect_error("SW 3 7 0x01\n", 1);
	/* NUL inside, a line too long */
	{
		static const char nul[] = "Switch 8 \"S-01\"\n[1] \"H-02\"[1]\0 x\n";

		expect_error_n(nul, sizeof(nul) - 1, 2);
	}
	memset(longline, 'a', sizeof(longline) - 1);
	expect_error(longline, 1);
}

static void test_edges(void **state)
{
	static const char text[] =
		"switchguid=0x7cfe9003009ce5b0(7cfe9003009ce5b0)\r\n"
		"Switch\t36 \"myswitch\"\t# \"MF0;sw-a:MQM8700/U1\" enhanced port 0\r\n"
		"[3][ext 2]\t\"H-7cfe900300b2c4d1\"[1](7cfe900300b2c4d2) \t# "
		"\"cn17 HCA-1\" lid 7 4xHDR\r\n"
		"[5]\t\"R-0002c90300000001\"[2]\t# \"router\" lid 9 4xEDR\r\n"
		"\n"
		"caguid=0x7cfe900300b2c4d1\n"
		"Ca\t1 \"H-7cfe900300b2c4d1\"\t# \"cn17 HCA-1\"\n"
		"[1](7cfe900300b2c4d2) \t\"S-7cfe9003009ce5b0\"[3]\t# lid 7\n"
		"SW 2 9 0x7cfe9003009ce5b0 4x HDR 'MF0;sw-a:MQM8700/U1'\n"
		"CA 8 1 0x01 4x SDR - SW 3 2 0x02 ( 'x' - 'y' )\n";
	struct links ls;
	size_t line = 9;

	(void)state;
	memset(&ls, 0, sizeof(ls));
	assert_int_equal(bcn_topofile_parse(text, sizeof(text) - 1, take, &ls,
					    &line), 0);
	assert_int_equal(ls.n, 2);
	/* a node id that is not X-guid: the switchguid= line names it */
	assert_string_equal(ls.l[0].sw, "0x7cfe9003009ce5b0");
	assert_string_equal(ls.l[0].sw_name, "MF0;sw-a:MQM8700/U1");
	assert_int_equal(ls.l[0].port, 3);
	assert_string_equal(ls.l[0].remote_name, "cn17 HCA-1");
	assert_int_equal(ls.l[0].rate, 25000000000ull);
	assert_int_equal(ls.l[1].remote_kind, BCN_TOPO_HOST);   /* router */
	assert_int_equal(ls.l[1].rate, 12500000000ull);
	/* fn's value stops the parse */
	memset(&ls, 0, sizeof(ls));
	ls.stop_at = 1;
	assert_int_equal(bcn_topofile_parse(text, sizeof(text) - 1, take, &ls,
					    &line), -99);
	assert_int_equal(ls.n, 1);
	assert_int_equal(line, 3);
	/* empty input */
	assert_int_equal(bcn_topofile_parse("", 0, take, &ls, &line), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topology_file),
		cmocka_unit_test(test_ports_format),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
