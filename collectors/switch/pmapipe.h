/* Pipelined PerfMgt Get queries to one switch for beacon-swd's PMA
 * source: up to a window of requests outstanding at once on the local
 * port (libibumad's umad_send / umad_recv, MADs built by libibmad's
 * mad_build_pkt), answers matched by transaction ID, unanswered requests
 * sent again after the timeout. Compared with one blocking call per MAD
 * this saves a wait (a sleep and a wake-up) per MAD. */
#ifndef BCN_PMAPIPE_H
#define BCN_PMAPIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/switch/pmamad.h"

#define BCN_PMA_PIPE_REQS 1024          /* requests of one run, at most */
#define BCN_PMA_WINDOW_MAX 256          /* requests outstanding, at most */

struct ibmad_port;

/* One query: the attribute and port asked, then what came back. */
struct bcn_pma_req {
	uint16_t attr;                  /* BCN_PMA_ATTR_* */
	uint8_t port;                   /* PortSelect */
	bool done;                      /* answered */
	int rc;                         /* 0, or -EPROTO: an error status */
	uint32_t tid;                   /* of the last request sent */
	uint8_t data[BCN_PMA_DATA_LEN]; /* the answer's attribute data */
};

struct bcn_pma_pipe;

/* Prepares pipelined queries on mad (opened with the PerfMgt class).
 * Returns 0 with *out, -EINVAL (window 0 or above BCN_PMA_WINDOW_MAX) or
 * -ENOMEM. */
int bcn_pma_pipe_new(struct ibmad_port *mad, unsigned window,
		     struct bcn_pma_pipe **out);

/* Frees pp (NULL is fine); the port stays open. */
void bcn_pma_pipe_free(struct bcn_pma_pipe *pp);

/* Sends the n queries req[0..n-1] (n <= BCN_PMA_PIPE_REQS; attr and port
 * set, the rest filled in) to the PMA at lid, at most the window
 * outstanding. A request not answered within timeout_ms of the last
 * progress (an answer, or the first send) is sent again, at most retries
 * times. Answers with an error status get rc -EPROTO. Returns 0 when
 * every query was answered, -ETIMEDOUT when some were not (those have
 * done false), -EINVAL for a bad n, or a negative code of the port. */
int bcn_pma_pipe_run(struct bcn_pma_pipe *pp, uint16_t lid,
		     struct bcn_pma_req *req, size_t n, int timeout_ms,
		     int retries);

#endif
