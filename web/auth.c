/* Sessions, CSRF and the log-in endpoints (web/auth.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <sodium.h>

#include "common/error.h"
#include "common/text.h"
#include "web/auth.h"
#include "web/ratelimit.h"
#include "web/web_int.h"

#define NS ((int64_t)1000000000)
#define EXPIRE_EVERY_NS (60 * NS)
#define FIELD_MAX (BCN_USER_PASSWORD_MAX + 1)
/* an address (a whole site behind NAT, perhaps) gets this many times a
 * user's failures */
#define ADDR_FACTOR 4

static int64_t last_expiry;

int bcn_web_auth_init(struct bcn_web *w)
{
	const struct bcn_web_config *c = w->cfg;
	unsigned char rnd[16];
	char pw[33];

	w->rl_user = bcn_ratelimit_new(c->login_table, c->login_attempts,
				       c->login_window_ms * 1000000);
	w->rl_addr = bcn_ratelimit_new(c->login_table, c->login_attempts *
				       ADDR_FACTOR, c->login_window_ms * 1000000);
	if (!w->rl_user || !w->rl_addr)
		return -ENOMEM;
	/* a hash no password matches, checked for unknown users so that
	 * they take as long as known ones */
	randombytes_buf(rnd, sizeof(rnd));
	sodium_bin2hex(pw, sizeof(pw), rnd, sizeof(rnd));
	return bcn_user_hash_password(pw, 32, w->dummy_hash);
}

void bcn_web_auth_fini(struct bcn_web *w)
{
	bcn_ratelimit_free(w->rl_user);
	bcn_ratelimit_free(w->rl_addr);
	w->rl_user = w->rl_addr = NULL;
}

void bcn_web_auth_tick(struct bcn_web *w)
{
	int64_t now = bcn_web_now();

	if (!w->db || now - last_expiry < EXPIRE_EVERY_NS)
		return;
	last_expiry = now;
	if (bcn_jobdb_sessions_expire(w->db, now) < 0)
		bcn_complain(&w->backend_log, BCN_LOG_WARNING, "sessions: %s",
			     bcn_jobdb_error(w->db));
}

static void token_hash(const char *token, char out[BCN_SESSION_HASH_LEN + 1])
{
	unsigned char h[32];

	crypto_generichash(h, sizeof(h), (const unsigned char *)token,
			   strlen(token), NULL, 0);
	sodium_bin2hex(out, BCN_SESSION_HASH_LEN + 1, h, sizeof(h));
}

static bool is_hex(const char *s, size_t n)
{
	if (!s || strlen(s) != n)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

static int by_proxy(struct bcn_web_req *q)
{
	const struct bcn_web_config *c = q->w->cfg;
	const char *name;
	struct bcn_user u;
	int rc;

	if (!c->trust_remote_user || strcmp(q->peer, c->trusted_proxy))
		return 0;
	name = MHD_lookup_connection_value(q->conn, MHD_HEADER_KIND,
					   c->remote_user_header);
	if (!name || !bcn_user_name_ok(name))
		return 0;
	rc = bcn_jobdb_user_get(q->w->db, name, &u);
	if (rc <= 0 || u.disabled)
		return rc < 0 ? rc : 0;
	q->who.known = q->who.via_proxy = true;
	snprintf(q->who.user, sizeof(q->who.user), "%s", u.name);
	q->who.role = u.role;
	return 0;
}

int bcn_web_auth_identify(struct bcn_web_req *q)
{
	const char *tok = MHD_lookup_connection_value(q->conn, MHD_COOKIE_KIND,
						      BCN_WEB_COOKIE);
	struct bcn_session s;
	int rc = 0;

	memset(&q->who, 0, sizeof(q->who));
	pthread_mutex_lock(&q->w->lock);
	if (is_hex(tok, 64)) {
		token_hash(tok, q->who.token_hash);
		rc = bcn_jobdb_session_get(q->w->db, q->who.token_hash,
					   bcn_web_now(), &s);
		if (rc == 1) {
			q->who.known = true;
			snprintf(q->who.user, sizeof(q->who.user), "%s", s.user);
			q->who.role = s.role;
			memcpy(q->who.csrf, s.csrf, sizeof(q->who.csrf));
			rc = 0;
		}
	}
	if (!rc && !q->who.known)
		rc = by_proxy(q);
	if (rc < 0)
		bcn_complain(&q->w->backend_log, BCN_LOG_ERR, "job database: %s",
			     bcn_jobdb_error(q->w->db));
	pthread_mutex_unlock(&q->w->lock);
	return rc;
}

bool bcn_web_auth_csrf_ok(const struct bcn_web_req *q)
{
	const char *h = MHD_lookup_connection_value(q->conn, MHD_HEADER_KIND,
						    "X-CSRF-Token");

	if (!q->who.known || !h)
		return false;
	if (q->who.via_proxy)   /* a custom header: no cross-site form */
		return h[0] != '\0';
	return strlen(h) == BCN_SESSION_CSRF_LEN &&
	       !sodium_memcmp(h, q->who.csrf, BCN_SESSION_CSRF_LEN);
}

/* Decodes one application/x-www-form-urlencoded value of n bytes. */
static int form_decode(const char *s, size_t n, char *out, size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned v;
		char c = s[i];

		if (k + 1 >= cap) {
			out[0] = '\0';         /* nothing half decoded is used */
			return -BCN_ERANGE;
		}
		if (c == '+')
			c = ' ';
		else if (c == '%') {
			/* the buffer is not NUL-terminated: no sscanf here */
			if (i + 2 >= n || bcn_text_hexval(s[i + 1]) < 0 ||
			    bcn_text_hexval(s[i + 2]) < 0) {
				out[0] = '\0';
				return -BCN_ESYNTAX;
			}
			v = (unsigned)(bcn_text_hexval(s[i + 1]) * 16 +
				       bcn_text_hexval(s[i + 2]));
			c = (char)v;
			i += 2;
		}
		if (!c) {
			out[0] = '\0';
			return -BCN_ESYNTAX;
		}
		out[k++] = c;
	}
	out[k] = '\0';
	return 0;
}

static int form_field(const char *body, size_t n, const char *name,
		      char *out, size_t cap)
{
	size_t nl = strlen(name);
	const char *p = body, *end = body + n;

	while (p < end) {
		const char *amp = memchr(p, '&', (size_t)(end - p));
		const char *e = amp ? amp : end;

		if ((size_t)(e - p) > nl && !memcmp(p, name, nl) && p[nl] == '=')
			return form_decode(p + nl + 1, (size_t)(e - p) - nl - 1,
					   out, cap);
		p = e + 1;
	}
	return -ENOENT;
}

static int json_field(json_t *o, const char *name, char *out, size_t cap)
{
	json_t *v = json_object_get(o, name);
	const char *s = json_string_value(v);

	if (!s)
		return -ENOENT;
	if (json_string_length(v) >= cap || strlen(s) != json_string_length(v))
		return -BCN_ERANGE;
	memcpy(out, s, json_string_length(v) + 1);
	return 0;
}

int bcn_web_login_parse(const char *ctype, const char *body, size_t len,
			char *user, size_t ucap, char *pw, size_t pcap)
{
	json_t *o;
	int rc;

	user[0] = pw[0] = '\0';
	if (!body)
		body = "";
	if (ctype && !strncmp(ctype, "application/json", 16)) {
		o = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
		if (!json_is_object(o)) {
			json_decref(o);
			return -BCN_ESYNTAX;
		}
		rc = json_field(o, "user", user, ucap);
		if (!rc)
			rc = json_field(o, "password", pw, pcap);
		json_decref(o);
	} else if (ctype && !strncmp(ctype, "application/x-www-form-urlencoded",
				     33)) {
		rc = form_field(body, len, "user", user, ucap);
		if (!rc)
			rc = form_field(body, len, "password", pw, pcap);
	} else {
		return -EPROTO;
	}
	if (!bcn_user_name_ok(user))
		return -EINVAL;
	return rc ? -ENOENT : 0;
}

/* The user and password of a log-in body (JSON or a form). */
static int credentials(struct bcn_web_req *q, struct bcn_web_resp *p,
		       char *user, char *pw)
{
	const char *ct = MHD_lookup_connection_value(q->conn, MHD_HEADER_KIND,
						     "Content-Type");
	int rc = bcn_web_login_parse(ct, q->body, q->body_len, user,
				     BCN_USER_NAME_MAX + 1, pw, FIELD_MAX);

	switch (rc) {
	case 0:
		return 0;
	case -BCN_ESYNTAX:
		return bcn_web_error(p, 400, "the body is no JSON object",
				     "body"), -EINVAL;
	case -EPROTO:
		return bcn_web_error(p, 415, "log in with a JSON or form body",
				     "Content-Type"), -EINVAL;
	case -EINVAL:
		return bcn_web_error(p, 400, "a user name is required", "user"),
		       -EINVAL;
	default:
		return bcn_web_error(p, 400, "a password is required",
				     "password"), -EINVAL;
	}
}

static int who_json(struct bcn_web_resp *p, const char *user, int role,
		    const char *csrf)
{
	int rc = bcn_buf_adds(&p->body, "{\"user\":");

	if (!rc)
		rc = bcn_buf_add_json_str(&p->body, user);
	if (!rc)
		rc = bcn_buf_printf(&p->body, ",\"role\":\"%s\"",
				    bcn_user_role_name(role));
	if (!rc && csrf)
		rc = bcn_buf_printf(&p->body, ",\"csrf\":\"%s\"", csrf);
	if (!rc)
		rc = bcn_buf_adds(&p->body, "}");
	p->status = 200;
	return rc;
}

/* Whether user or the peer is over the limit: sets 429 then. */
static bool limited(struct bcn_web_req *q, struct bcn_web_resp *p,
		    const char *user, int64_t now)
{
	char ku[BCN_RATELIMIT_KEY_MAX], ka[BCN_RATELIMIT_KEY_MAX];
	int64_t wu, wa;

	snprintf(ku, sizeof(ku), "u:%s", user);
	snprintf(ka, sizeof(ka), "a:%s", q->peer);
	wu = bcn_ratelimit_blocked(q->w->rl_user, ku, now);
	wa = bcn_ratelimit_blocked(q->w->rl_addr, ka, now);
	if (!wu && !wa)
		return false;
	p->retry_after_s = ((wu > wa ? wu : wa) + NS - 1) / NS;
	bcn_web_error(p, 429, "too many failed log-ins; try again later",
		      wu ? "user" : NULL);
	return true;
}

static void failed(struct bcn_web_req *q, const char *user, int64_t now)
{
	char k[BCN_RATELIMIT_KEY_MAX];

	snprintf(k, sizeof(k), "u:%s", user);
	bcn_ratelimit_fail(q->w->rl_user, k, now);
	snprintf(k, sizeof(k), "a:%s", q->peer);
	bcn_ratelimit_fail(q->w->rl_addr, k, now);
	pthread_mutex_lock(&q->w->lock);
	bcn_complain(&q->w->peer_log, BCN_LOG_NOTICE, "failed log-in as '%s' "
		     "from %s", user, q->peer);
	pthread_mutex_unlock(&q->w->lock);
}

/* A new session for u: its cookie and CSRF token. */
static int open_session(struct bcn_web_req *q, struct bcn_web_resp *p,
			const struct bcn_user *u, int64_t now)
{
	const struct bcn_web_config *c = q->w->cfg;
	unsigned char rnd[32];
	char tok[65], th[65], csrf[65];
	int rc;

	randombytes_buf(rnd, sizeof(rnd));
	sodium_bin2hex(tok, sizeof(tok), rnd, sizeof(rnd));
	randombytes_buf(rnd, sizeof(rnd));
	sodium_bin2hex(csrf, sizeof(csrf), rnd, sizeof(rnd));
	token_hash(tok, th);
	pthread_mutex_lock(&q->w->lock);
	rc = bcn_jobdb_session_put(q->w->db, th, u->name, csrf, now,
				   now + c->session_ttl_ms * 1000000);
	pthread_mutex_unlock(&q->w->lock);
	if (rc)
		return rc;
	snprintf(p->cookie, sizeof(p->cookie), BCN_WEB_COOKIE "=%s; Path=/; "
		 "HttpOnly; SameSite=Strict; Max-Age=%lld%s", tok,
		 (long long)(c->session_ttl_ms / 1000),
		 c->cookie_secure ? "; Secure" : "");
	sodium_memzero(tok, sizeof(tok));
	return who_json(p, u->name, u->role, csrf);
}

int bcn_web_login(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	static __thread char pw[FIELD_MAX];
	char user[BCN_USER_NAME_MAX + 1] = "";
	int64_t now = bcn_web_now();
	struct bcn_user u;
	int rc, ok;

	if (credentials(q, p, user, pw))
		return 0;
	if (limited(q, p, user, now)) {
		rc = 0;
		goto out;
	}
	pthread_mutex_lock(&q->w->lock);
	rc = bcn_jobdb_user_get(q->w->db, user, &u);
	pthread_mutex_unlock(&q->w->lock);
	if (rc < 0)
		goto out;
	/* the slow check runs for unknown users too */
	ok = bcn_user_check_password(rc == 1 ? u.hash : q->w->dummy_hash, pw,
				     strlen(pw));
	if (rc == 1 && ok && !u.disabled) {
		rc = open_session(q, p, &u, now);
		goto out;
	}
	failed(q, user, now);
	atomic_fetch_add(&q->w->metrics.login_failures, 1);
	rc = bcn_web_error(p, 401, "wrong user or password", NULL);
out:
	sodium_memzero(pw, sizeof(pw));
	return rc;
}

int bcn_web_logout(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	int rc = 0;

	if (q->who.token_hash[0]) {
		pthread_mutex_lock(&q->w->lock);
		rc = bcn_jobdb_session_del(q->w->db, q->who.token_hash);
		pthread_mutex_unlock(&q->w->lock);
	}
	if (rc < 0)
		return rc;
	snprintf(p->cookie, sizeof(p->cookie), BCN_WEB_COOKIE "=; Path=/; "
		 "HttpOnly; SameSite=Strict; Max-Age=0%s",
		 q->w->cfg->cookie_secure ? "; Secure" : "");
	p->status = 200;
	return bcn_buf_adds(&p->body, "{\"logged_out\":true}");
}

int bcn_web_me(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	return who_json(p, q->who.user, q->who.role,
			q->who.via_proxy ? NULL : q->who.csrf);
}
