/* Tests of the network computations (analysis/network.c): the imbalance
 * figure and histogram, which topology record is valid for a window,
 * and the per-switch sums of a job over the real ibsim fabric of
 * tests/data/ib/ibnetdiscover (parsed by topofile.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/network.h"
#include "collectors/switch/topofile.h"
#include "common/buf.h"

static void test_imbalance(void **state)
{
	const uint64_t a[] = { 10, 100, 10, 12, 8 }, b[] = { 5 };
	const uint64_t c[] = { 10, 10 }, d[] = { 0, 0, 7 }, e[] = { 30, 10 };
	double x;
	size_t top;

	(void)state;
	assert_int_equal(bcn_net_imbalance(a, 5, &x, &top), 0);
	assert_int_equal(top, 1);
	/* median of 10, 10, 12, 8 is 10 */
	assert_true(x == 10.0);
	assert_int_equal(bcn_net_imbalance(b, 1, &x, &top), 0);
	assert_true(x == 0.0);
	assert_int_equal(bcn_net_imbalance(c, 2, &x, &top), 0);
	assert_true(x == 1.0);
	assert_int_equal(bcn_net_imbalance(d, 3, &x, &top), 0);
	assert_int_equal(top, 2);
	assert_true(x == 7.0);          /* a median under 1 byte counts as 1 */
	assert_int_equal(bcn_net_imbalance(e, 2, &x, &top), 0);
	assert_true(x == 3.0);
}

static void test_histogram(void **state)
{
	const uint64_t v[] = { 0, 50, 100, 99, 9, 10 }, z[] = { 0, 0 };
	uint64_t h[BCN_NET_HIST_BINS], w;

	(void)state;
	bcn_net_histogram(v, 6, h, &w);
	assert_int_equal(w, 10);
	assert_int_equal(h[0], 2);      /* 0, 9 */
	assert_int_equal(h[1], 1);      /* 10 */
	assert_int_equal(h[5], 1);
	assert_int_equal(h[9], 2);      /* 99 and the maximum */
	bcn_net_histogram(z, 2, h, &w);
	assert_int_equal(w, 0);
	assert_int_equal(h[0], 2);
	bcn_net_histogram(v + 2, 1, h, &w);     /* 100: width 10, last bin */
	assert_int_equal(h[9], 1);
}

static void topo(struct bcn_record *r, int64_t t, const char *sw,
		 uint64_t port, const char *remote_name)
{
	bcn_record_init(r, BCN_REC_TOPOLOGY);
	r->t = t;
	r->u.topo.sw = sw;
	r->u.topo.port = port;
	r->u.topo.remote_name = remote_name;
}

static void test_validity(void **state)
{
	struct bcn_net n;
	struct bcn_record r;

	(void)state;
	bcn_net_init(&n, 250, 16);
	topo(&r, 300, "0x01", 1, "late");
	assert_int_equal(bcn_net_take_topology(&n, &r), 0);
	topo(&r, 100, "0x01", 1, "old");
	assert_int_equal(bcn_net_take_topology(&n, &r), 0);
	topo(&r, 200, "0x01", 1, "valid");
	assert_int_equal(bcn_net_take_topology(&n, &r), 0);
	topo(&r, 150, "0x01", 1, "older");
	assert_int_equal(bcn_net_take_topology(&n, &r), 0);
	assert_int_equal(n.nlinks, 1);
	assert_string_equal(bcn_net_link_of(&n, "0x01", 1)->host, "valid");
	/* only records after the window: the oldest of them */
	topo(&r, 400, "0x01", 2, "later");
	assert_int_equal(bcn_net_take_topology(&n, &r), 0);
	topo(&r, 300, "0x01", 2, "first-after");
	assert_int_equal(bcn_net_take_topology(&n, &r), 0);
	assert_string_equal(bcn_net_link_of(&n, "0x01", 2)->host, "first-after");
	assert_null(bcn_net_link_of(&n, "0x01", 3));
	/* other record types are ignored */
	bcn_record_init(&r, BCN_REC_PORT);
	assert_int_equal(bcn_net_take_topology(&n, &r), 0);
	assert_int_equal(n.nlinks, 2);
	bcn_net_free(&n);
}

/* ---- a job on the ibsim fabric ---- */

struct feed {
	struct bcn_net *n;
	size_t links;
};

static int feed_link(void *arg, const struct bcn_topo_link *l)
{
	struct feed *f = arg;
	struct bcn_record r;

	bcn_record_init(&r, BCN_REC_TOPOLOGY);
	r.t = 1000;
	r.u.topo.sw = l->sw;
	r.u.topo.sw_name = l->sw_name;
	r.u.topo.port = l->port;
	r.u.topo.remote_kind = l->remote_kind;
	r.u.topo.remote = l->remote;
	r.u.topo.remote_port = l->remote_port;
	r.u.topo.remote_name = l->remote_name;
	r.u.topo.rate = l->rate;
	f->links++;
	return bcn_net_take_topology(f->n, &r);
}

static void load_fabric(struct bcn_net *n)
{
	struct feed f = { n, 0 };
	struct bcn_buf b;

	bcn_buf_init(&b, 1 << 20);
	assert_int_equal(bcn_buf_read_file(&b, BCN_TEST_DATA
					   "/ib/ibnetdiscover/fabric.topo"), 0);
	assert_int_equal(bcn_topofile_parse((const char *)b.data, b.len,
					    feed_link, &f, NULL), 0);
	assert_int_equal(f.links, 11);
	bcn_buf_free(&b);
}

static void port(struct bcn_net *n, const char *sw, uint64_t p, uint64_t x,
		 uint64_t v)
{
	struct bcn_record r;

	bcn_record_init(&r, BCN_REC_PORT);
	r.u.port.sw = sw;
	r.u.port.port = p;
	r.u.port.xmit_bytes = x;
	r.u.port.rcv_bytes = v;
	assert_int_equal(bcn_net_take_port(n, &r), 0);
}

static const struct bcn_net_switch *sw_named(const struct bcn_net *n,
					     const char *name)
{
	for (size_t i = 0; i < n->nsw; i++)
		if (!strcmp(n->sw[i].name, name))
			return &n->sw[i];
	return NULL;
}

static void test_job(void **state)
{
	const struct bcn_net_switch *l1, *l2;
	struct bcn_net n;

	(void)state;
	bcn_net_init(&n, 2000, 16);
	load_fabric(&n);
	assert_int_equal(bcn_net_add_node(&n, "cn001"), 0);
	assert_int_equal(bcn_net_add_node(&n, "cn003"), 0);
	assert_int_equal(bcn_net_add_node(&n, "cn999"), 0);
	assert_int_equal(bcn_net_select(&n), 0);
	/* leaf1 and leaf2; not the spine (no job node on it) */
	assert_int_equal(n.nsw, 2);
	assert_int_equal(n.unplaced, 1);
	l1 = sw_named(&n, "leaf1");
	l2 = sw_named(&n, "leaf2");
	assert_non_null(l1);
	assert_non_null(l2);
	assert_string_equal(l1->guid, "0x0000000000200000");
	assert_int_equal(l1->job_ports, 1);
	assert_int_equal(l1->uplinks, 2);
	assert_int_equal(l1->downlinks, 2);
	assert_int_equal(l2->uplinks, 1);
	/* by GUID, as beacon-swd's PMA targets name switches */
	port(&n, "0x0000000000200000", 1, 1000, 10);    /* cn001 */
	port(&n, "0x0000000000200000", 2, 500, 5);      /* cn002, not ours */
	port(&n, "0x0000000000200000", 7, 300, 3000);   /* uplink */
	port(&n, "0x0000000000200000", 8, 200, 2000);   /* uplink */
	/* by description, as a switch's own sysfs names it */
	port(&n, "leaf2", 1, 70, 7);                    /* cn003 */
	port(&n, "leaf2", 7, 7, 70);
	port(&n, "0x0000000000200002", 1, 9, 9);        /* the spine: not kept */
	port(&n, "0x0000000000200000", 5, 1, 1);        /* not cabled */
	assert_int_equal(l1->xmit, 1000);
	assert_int_equal(l1->rcv, 10);
	assert_int_equal(l1->up_xmit, 500);
	assert_int_equal(l1->up_rcv, 5000);
	assert_int_equal(l1->down_xmit, 1500);
	assert_int_equal(l1->down_rcv, 15);
	assert_int_equal(l1->total_xmit, 2000);
	assert_int_equal(l1->total_rcv, 5015);
	assert_int_equal(l2->xmit, 70);
	assert_int_equal(l2->rcv, 7);
	assert_int_equal(l2->up_rcv, 70);
	bcn_net_free(&n);
}

/* Without nodes: every switch of the fabric, every host port counted. */
static void test_fabric(void **state)
{
	const struct bcn_net_switch *sp;
	struct bcn_net n;

	(void)state;
	bcn_net_init(&n, 2000, 16);
	load_fabric(&n);
	assert_int_equal(bcn_net_select(&n), 0);
	assert_int_equal(n.nsw, 3);
	sp = sw_named(&n, "spine1");
	assert_non_null(sp);
	assert_int_equal(sp->uplinks, 3);
	assert_int_equal(sp->job_ports, 1);
	port(&n, "spine1", 8, 4, 6);
	port(&n, "spine1", 3, 40, 60);
	assert_int_equal(sp->xmit, 4);
	assert_int_equal(sp->up_xmit, 40);
	bcn_net_free(&n);
	/* a job whose node list is empty has no switches */
	bcn_net_init(&n, 2000, 16);
	load_fabric(&n);
	n.job = true;
	assert_int_equal(bcn_net_select(&n), 0);
	assert_int_equal(n.nsw, 0);
	bcn_net_free(&n);
	/* a cap on switches: counted, not kept */
	bcn_net_init(&n, 2000, 1);
	load_fabric(&n);
	assert_int_equal(bcn_net_select(&n), 0);
	assert_int_equal(n.nsw, 1);
	assert_true(n.dropped > 0);
	bcn_net_free(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_imbalance),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_validity),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_fabric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
