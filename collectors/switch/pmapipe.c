/* Pipelined PerfMgt queries (pmapipe.h). Transaction IDs: the low 32
 * bits (the kernel keeps the high ones) are a 20-bit round number, new
 * for every run and every resend, and the request's index in the low 12
 * bits, so an answer finds its request without a search and a late
 * answer to an earlier round is told apart and dropped. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "collectors/switch/pmapipe.h"
#include "common/clock.h"

#define TID_IDX_BITS 12
#define TID_IDX_MASK ((1u << TID_IDX_BITS) - 1)
#define TID_ROUNDS (1u << (32 - TID_IDX_BITS))

struct bcn_pma_pipe {
	int fd, agent;
	unsigned window;
	uint32_t round;
	size_t bufsz;
	uint8_t *sbuf, *rbuf;           /* umad headers + one MAD each */
};

int bcn_pma_pipe_new(struct ibmad_port *mad, unsigned window,
		     struct bcn_pma_pipe **out)
{
	struct bcn_pma_pipe *pp;

	if (!window || window > BCN_PMA_WINDOW_MAX)
		return -EINVAL;
	pp = calloc(1, sizeof(*pp));
	if (!pp)
		return -ENOMEM;
	pp->fd = mad_rpc_portid(mad);
	pp->agent = mad_rpc_class_agent(mad, IB_PERFORMANCE_CLASS);
	pp->window = window;
	pp->round = (uint32_t)bcn_mono_ms() % TID_ROUNDS;
	pp->bufsz = umad_size() + IB_MAD_SIZE;
	pp->sbuf = calloc(2, pp->bufsz);
	if (!pp->sbuf || pp->fd < 0 || pp->agent < 0) {
		int rc = pp->sbuf ? -ENODEV : -ENOMEM;

		free(pp->sbuf);
		free(pp);
		return rc;
	}
	pp->rbuf = pp->sbuf + pp->bufsz;
	*out = pp;
	return 0;
}

void bcn_pma_pipe_free(struct bcn_pma_pipe *pp)
{
	if (!pp)
		return;
	free(pp->sbuf);
	free(pp);
}

/* Sends req i in round pp->round. Returns 0 or a negative code. */
static int pipe_send(struct bcn_pma_pipe *pp, uint16_t lid,
		     struct bcn_pma_req *req, size_t i, int timeout_ms)
{
	uint8_t data[IB_PC_DATA_SZ];
	ib_rpc_t rpc;
	ib_portid_t id;

	memset(&rpc, 0, sizeof(rpc));
	memset(&id, 0, sizeof(id));
	memset(data, 0, sizeof(data));
	data[1] = req[i].port;          /* PortSelect */
	rpc.mgtclass = IB_PERFORMANCE_CLASS;
	rpc.method = IB_MAD_METHOD_GET;
	rpc.attr.id = req[i].attr;
	rpc.timeout = (unsigned)timeout_ms;
	rpc.datasz = IB_PC_DATA_SZ;
	rpc.dataoffs = IB_PC_DATA_OFFS;
	req[i].tid = pp->round << TID_IDX_BITS | (uint32_t)i;
	rpc.trid = req[i].tid;
	id.lid = lid;
	id.qp = 1;
	id.qkey = IB_DEFAULT_QP1_QKEY;
	memset(pp->sbuf, 0, pp->bufsz);
	if (mad_build_pkt(pp->sbuf, &rpc, &id, NULL, data) < 0)
		return -EINVAL;
	/* the kernel waits timeout_ms for the answer and reports a miss;
	 * the resends are ours (the round number changes) */
	if (umad_send(pp->fd, pp->agent, pp->sbuf, IB_MAD_SIZE, timeout_ms,
		      0) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

/* Takes the answer in pp->rbuf (len bytes) if it is one to req[0..n-1]
 * of this round. Returns 1 when it completed a request, else 0. */
static int pipe_take(struct bcn_pma_pipe *pp, int len,
		     struct bcn_pma_req *req, size_t n)
{
	const uint8_t *m = umad_get_mad(pp->rbuf);
	struct bcn_pma_hdr h;
	size_t i;

	/* a send the kernel gave up on comes back with a status */
	if (umad_status(pp->rbuf) || len < IB_MAD_SIZE ||
	    bcn_pma_hdr_parse(m, (size_t)len, &h))
		return 0;
	i = h.tid & TID_IDX_MASK;
	if (i >= n || req[i].done || h.tid != req[i].tid ||
	    h.attr != req[i].attr)
		return 0;
	req[i].done = true;
	req[i].rc = h.status ? -EPROTO : 0;
	memcpy(req[i].data, m + BCN_PMA_HDR_LEN, BCN_PMA_DATA_LEN);
	return 1;
}

/* Sends again the requests of req[0..sent-1] not answered, in a new
 * round. Returns 0 or a negative code. */
static int pipe_resend(struct bcn_pma_pipe *pp, uint16_t lid,
		       struct bcn_pma_req *req, size_t sent, int timeout_ms)
{
	int rc;

	pp->round = (pp->round + 1) % TID_ROUNDS;
	for (size_t i = 0; i < sent; i++)
		if (!req[i].done) {
			rc = pipe_send(pp, lid, req, i, timeout_ms);
			if (rc)
				return rc;
		}
	return 0;
}

int bcn_pma_pipe_run(struct bcn_pma_pipe *pp, uint16_t lid,
		     struct bcn_pma_req *req, size_t n, int timeout_ms,
		     int retries)
{
	size_t sent = 0, out = 0;
	int64_t deadline = 0;
	int tries = 0, rc;

	if (n > BCN_PMA_PIPE_REQS || n > TID_IDX_MASK + 1)
		return -EINVAL;
	pp->round = (pp->round + 1) % TID_ROUNDS;
	for (size_t i = 0; i < n; i++) {
		req[i].done = false;
		req[i].rc = 0;
	}
	while (sent < n || out) {
		int len = IB_MAD_SIZE;
		int64_t left;

		for (; out < pp->window && sent < n; sent++, out++) {
			rc = pipe_send(pp, lid, req, sent, timeout_ms);
			if (rc)
				return rc;
			if (!deadline)
				deadline = bcn_mono_ms() + timeout_ms;
		}
		left = deadline - bcn_mono_ms();
		if (left <= 0) {
			if (tries++ >= retries)
				return -ETIMEDOUT;
			rc = pipe_resend(pp, lid, req, sent, timeout_ms);
			if (rc)
				return rc;
			deadline = bcn_mono_ms() + timeout_ms;
			continue;
		}
		rc = umad_recv(pp->fd, pp->rbuf, &len, (int)left);
		if (rc == -ETIMEDOUT || rc == -EINTR || rc == -EAGAIN)
			continue;       /* the deadline decides */
		if (rc < 0)
			return rc;
		if (rc != pp->agent || !pipe_take(pp, len, req, n))
			continue;
		out--;
		deadline = bcn_mono_ms() + timeout_ms;
	}
	return 0;
}
