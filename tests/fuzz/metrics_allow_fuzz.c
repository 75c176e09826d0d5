/* libFuzzer target of web/metrics's address lists: the input up to its
 * first newline is a web_metrics_allow list, the rest a peer address.
 * Parsing is bounded (at most BCN_WEB_ALLOW_MAX entries, an error message
 * that fits); every block of a parsed list lets its own address in (as
 * inet_ntop prints it); and the peer is checked without reading past it
 * (ASan). */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "web/metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bcn_web_metrics m;
	const uint8_t *nl = memchr(data, '\n', size);
	size_t ln = nl ? (size_t)(nl - data) : size;
	char *list = malloc(ln + 1), *peer = malloc(size - ln + 1), err[256];
	char a[INET6_ADDRSTRLEN];

	if (!list || !peer)
		goto out;
	memcpy(list, data, ln);
	list[ln] = '\0';
	memcpy(peer, data + ln + (nl ? 1 : 0), size - ln - (nl ? 1 : 0));
	peer[size - ln - (nl ? 1 : 0)] = '\0';
	err[0] = '\0';
	if (bcn_web_metrics_allow_parse(&m, list, err, sizeof(err)) == 0) {
		if (m.nallow > BCN_WEB_ALLOW_MAX)
			abort();
		for (size_t i = 0; i < m.nallow; i++)
			if (!inet_ntop(m.allow[i].family, m.allow[i].addr, a,
				       sizeof(a)) ||
			    !bcn_web_metrics_allowed(&m, a))
				abort();
	} else if (!memchr(err, '\0', sizeof(err))) {
		abort();
	}
	(void)bcn_web_metrics_allowed(&m, peer);
out:
	free(list);
	free(peer);
	return 0;
}
