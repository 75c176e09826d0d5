/* Log-in, log-out and who asks (docs/api.md, "Access control"): a
 * session is a random 256-bit token in a Secure, HttpOnly,
 * SameSite=Strict cookie, kept in the job database by its BLAKE2b hash
 * with a CSRF token that every POST and DELETE must echo in the
 * X-CSRF-Token header; failed log-ins are limited per user and per
 * address (web/ratelimit.h). A trusted front proxy's user header is
 * honoured only when configured (web_trust_remote_user). */
#ifndef BCN_WEB_AUTH_H
#define BCN_WEB_AUTH_H

#include <stdbool.h>

struct bcn_web;
struct bcn_web_req;

#define BCN_WEB_COOKIE "beacon_session"

int bcn_web_auth_init(struct bcn_web *w);
void bcn_web_auth_fini(struct bcn_web *w);

/* Periodic work (expired sessions), under w->lock. */
void bcn_web_auth_tick(struct bcn_web *w);

/* Fills q->who from the session cookie or the proxy's header. Returns
 * 0, or a negative code when the job database fails. Takes w->lock. */
int bcn_web_auth_identify(struct bcn_web_req *q);

/* Parses a log-in body of content type ctype (application/json with
 * "user" and "password" strings, or a form with user= and password=)
 * into user (ucap bytes) and pw (pcap bytes), NUL-terminated. A pure
 * function over the buffer. Returns 0, -EPROTO (another content type),
 * -BCN_ESYNTAX (no JSON object), -EINVAL (no valid user name: see
 * bcn_user_name_ok), -ENOENT (no password, or a value too long or
 * holding a NUL). */
#include <stddef.h>
int bcn_web_login_parse(const char *ctype, const char *body, size_t len,
			char *user, size_t ucap, char *pw, size_t pcap);

/* Whether a state-changing request of a known user carries the CSRF
 * token of their session. */
bool bcn_web_auth_csrf_ok(const struct bcn_web_req *q);

#endif
