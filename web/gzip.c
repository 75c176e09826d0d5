/* gzip for answers (web/web_int.h) with zlib, when the client's
 * Accept-Encoding allows it (gzip without q=0). */
#include <string.h>
#include <strings.h>

#include <zlib.h>

#include "web/web_int.h"

#define GZIP_MIN 256            /* smaller answers go as they are */

bool bcn_web_accepts_gzip(struct MHD_Connection *conn)
{
	const char *ae = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						     "Accept-Encoding");
	const char *s = ae;

	while (s && *s) {
		size_t n;

		while (*s == ' ' || *s == ',')
			s++;
		n = strcspn(s, ",");
		if (n >= 4 && !strncasecmp(s, "gzip", 4) &&
		    (n == 4 || s[4] == ';' || s[4] == ' ')) {
			const char *qv = memchr(s, '=', n);

			/* "gzip;q=0", "gzip;q=0.0": refused */
			return !(qv && strspn(qv + 1, "0.") ==
				 (size_t)(s + n - qv - 1));
		}
		s += n;
	}
	return false;
}

int bcn_web_gzip(struct bcn_buf *body)
{
	struct bcn_buf out;
	z_stream z;
	int rc = 0;

	if (body->len < GZIP_MIN)
		return 0;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	bcn_buf_init(&out, body->max);
	if (bcn_buf_reserve(&out, deflateBound(&z, body->len)))
		goto out;
	z.next_in = body->data;
	z.avail_in = (uInt)body->len;
	z.next_out = out.data;
	z.avail_out = (uInt)out.cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		goto out;
	out.len = z.total_out;
	bcn_buf_free(body);
	*body = out;
	out.data = NULL;
	rc = 1;
out:
	deflateEnd(&z);
	bcn_buf_free(&out);
	return rc;
}
