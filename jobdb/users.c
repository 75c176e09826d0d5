/* Accounts and sessions (jobdb/users.h): password hashing with
 * libsodium's crypto_pwhash_str and the users and sessions tables through
 * lazily prepared statements (slots BCN_JOBDB_LAZY_USER .. + 11). */
#include <errno.h>
#include <string.h>

#include <sodium.h>

#include "common/error.h"
#include "jobdb/jobdb_int.h"
#include "jobdb/users.h"

enum {
	US_ADD = BCN_JOBDB_LAZY_USER, US_DEL, US_DEL_SESSIONS, US_PASSWD,
	US_GET, SE_PUT, SE_GET, SE_TOUCH, SE_DEL, SE_EXPIRE,
	US_END
};
/* slots LAZY_USER + 12 .. + 15 belong to jobdb/grants.c */
_Static_assert(US_END <= BCN_JOBDB_LAZY_USER + 12, "user slots");

static const char sql_add[] = "INSERT IGNORE INTO users (name, role,"
	" password_hash, created_ns) VALUES (?, ?, ?, ?)";
static const char sql_del[] = "DELETE FROM users WHERE name = ?";
static const char sql_del_sessions[] = "DELETE FROM sessions WHERE user = ?";
static const char sql_passwd[] = "UPDATE users SET password_hash = ?"
	" WHERE name = ?";
static const char sql_get[] = "SELECT name, role, password_hash,"
	" created_ns, disabled FROM users WHERE name = ?";
static const char sql_se_put[] = "INSERT INTO sessions (token_hash, user,"
	" csrf, created_ns, expires_ns, last_seen_ns) VALUES (?, ?, ?, ?, ?, ?)";
static const char sql_se_get[] = "SELECT s.user, u.role, s.csrf,"
	" s.created_ns, s.expires_ns, s.last_seen_ns FROM sessions s JOIN"
	" users u ON u.name = s.user WHERE s.token_hash = ? AND"
	" s.expires_ns > ? AND u.disabled = 0";
static const char sql_se_touch[] = "UPDATE sessions SET last_seen_ns = ?"
	" WHERE token_hash = ?";
static const char sql_se_del[] = "DELETE FROM sessions WHERE token_hash = ?";
static const char sql_se_expire[] = "DELETE FROM sessions WHERE"
	" expires_ns <= ?";

bool bcn_user_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (!n || n > BCN_USER_NAME_MAX || name[0] == '-' || name[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

const char *bcn_user_role_name(int role)
{
	return role == BCN_ROLE_ADMIN ? "admin" : "user";
}

int bcn_user_role_parse(const char *s)
{
	if (!strcmp(s, "admin"))
		return BCN_ROLE_ADMIN;
	if (!strcmp(s, "user"))
		return BCN_ROLE_USER;
	return -BCN_ESYNTAX;
}

int bcn_user_hash_password(const char *password, size_t n, char *hash)
{
	_Static_assert(crypto_pwhash_STRBYTES <= BCN_USER_HASH_MAX, "hash");
	if (n < BCN_USER_PASSWORD_MIN || n > BCN_USER_PASSWORD_MAX)
		return -BCN_ERANGE;
	if (sodium_init() < 0)
		return -ENOMEM;
	if (crypto_pwhash_str(hash, password, n,
			      crypto_pwhash_OPSLIMIT_INTERACTIVE,
			      crypto_pwhash_MEMLIMIT_INTERACTIVE))
		return -ENOMEM;
	return 0;
}

int bcn_user_check_password(const char *hash, const char *password, size_t n)
{
	if (!hash[0] || n > BCN_USER_PASSWORD_MAX || sodium_init() < 0)
		return 0;
	return crypto_pwhash_str_verify(hash, password, n) == 0;
}

static int affected(struct bcn_jobdb *db, int slot, const char *sql,
		    struct binds *x)
{
	MYSQL_STMT *s;
	int rc = bcn_jobdb_lazy_exec(db, slot, sql, x, &s);

	return rc ? rc : (int)mysql_stmt_affected_rows(s);
}

int bcn_jobdb_user_add(struct bcn_jobdb *db, const char *name, int role,
		       const char *hash, int64_t now)
{
	const char *rn = bcn_user_role_name(role);
	struct binds x;
	int rc;

	if (!bcn_user_name_ok(name))
		return -EINVAL;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, name, 0);
	bcn_jobdb_b_str(&x, rn, 0);
	bcn_jobdb_b_str(&x, hash, 0);
	bcn_jobdb_b_i64(&x, &now);
	rc = affected(db, US_ADD, sql_add, &x);
	return rc < 0 ? rc : rc == 0 ? -EEXIST : 0;
}

static int end_sessions(struct bcn_jobdb *db, const char *name)
{
	struct binds x;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, name, 0);
	return affected(db, US_DEL_SESSIONS, sql_del_sessions, &x);
}

int bcn_jobdb_user_del(struct bcn_jobdb *db, const char *name)
{
	struct binds x;
	int rc, c;

	if ((rc = bcn_jobdb_begin(db)))
		return rc;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, name, 0);
	rc = affected(db, US_DEL, sql_del, &x);
	if (rc >= 0) {
		int r2 = end_sessions(db, name);

		if (r2 < 0)
			rc = r2;
	}
	if (rc < 0) {
		bcn_jobdb_rollback(db);
		return rc;
	}
	c = bcn_jobdb_commit(db);
	return c ? c : rc > 0;
}

int bcn_jobdb_user_passwd(struct bcn_jobdb *db, const char *name,
			  const char *hash)
{
	struct bcn_user u;
	struct binds x;
	int rc;

	if ((rc = bcn_jobdb_user_get(db, name, &u)) <= 0)
		return rc;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, hash, 0);
	bcn_jobdb_b_str(&x, name, 0);
	if ((rc = affected(db, US_PASSWD, sql_passwd, &x)) < 0)
		return rc;
	if ((rc = end_sessions(db, name)) < 0)
		return rc;
	return 1;
}

/* Fetches the one row of executed statement s bound to r: 1, 0 or < 0. */
static int fetch_one(struct bcn_jobdb *db, MYSQL_STMT *s, struct binds *r)
{
	int rc, found = 0;

	if (mysql_stmt_bind_result(s, r->b) || mysql_stmt_store_result(s))
		return bcn_jobdb_sfail(db, s);
	while ((rc = mysql_stmt_fetch(s)) == 0 || rc == MYSQL_DATA_TRUNCATED)
		found = 1;
	mysql_stmt_free_result(s);
	if (rc != MYSQL_NO_DATA)
		return bcn_jobdb_sfail(db, s);
	return found;
}

int bcn_jobdb_user_get(struct bcn_jobdb *db, const char *name,
		       struct bcn_user *u)
{
	char role[17];
	uint64_t disabled = 0;
	struct binds x, r;
	MYSQL_STMT *s;
	int rc;

	memset(u, 0, sizeof(*u));
	if (!bcn_user_name_ok(name))
		return 0;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, name, 0);
	if ((rc = bcn_jobdb_lazy_exec(db, US_GET, sql_get, &x, &s)))
		return rc;
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_str(&r, u->name, sizeof(u->name) - 1);
	bcn_jobdb_b_str(&r, role, sizeof(role) - 1);
	bcn_jobdb_b_str(&r, u->hash, sizeof(u->hash) - 1);
	bcn_jobdb_b_i64(&r, &u->created);
	bcn_jobdb_b_u64(&r, &disabled);
	if ((rc = fetch_one(db, s, &r)) <= 0)
		return rc;
	bcn_jobdb_str_fix(&r, 0, u->name, sizeof(u->name));
	bcn_jobdb_str_fix(&r, 1, role, sizeof(role));
	bcn_jobdb_str_fix(&r, 2, u->hash, sizeof(u->hash));
	u->role = bcn_user_role_parse(role) == BCN_ROLE_ADMIN ?
		  BCN_ROLE_ADMIN : BCN_ROLE_USER;
	u->disabled = disabled != 0;
	return 1;
}

int bcn_jobdb_session_put(struct bcn_jobdb *db, const char *token_hash,
			  const char *user, const char *csrf, int64_t now,
			  int64_t expires)
{
	struct binds x;
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, token_hash, 0);
	bcn_jobdb_b_str(&x, user, 0);
	bcn_jobdb_b_str(&x, csrf, 0);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_i64(&x, &expires);
	bcn_jobdb_b_i64(&x, &now);
	rc = affected(db, SE_PUT, sql_se_put, &x);
	return rc < 0 ? rc : 0;
}

int bcn_jobdb_session_get(struct bcn_jobdb *db, const char *token_hash,
			  int64_t now, struct bcn_session *se)
{
	char role[17];
	struct binds x, r;
	MYSQL_STMT *s;
	int rc;

	memset(se, 0, sizeof(*se));
	if (strlen(token_hash) != BCN_SESSION_HASH_LEN)
		return 0;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, token_hash, 0);
	bcn_jobdb_b_i64(&x, &now);
	if ((rc = bcn_jobdb_lazy_exec(db, SE_GET, sql_se_get, &x, &s)))
		return rc;
	bcn_jobdb_binds_init(&r);
	bcn_jobdb_b_str(&r, se->user, sizeof(se->user) - 1);
	bcn_jobdb_b_str(&r, role, sizeof(role) - 1);
	bcn_jobdb_b_str(&r, se->csrf, sizeof(se->csrf) - 1);
	bcn_jobdb_b_i64(&r, &se->created);
	bcn_jobdb_b_i64(&r, &se->expires);
	bcn_jobdb_b_i64(&r, &se->last_seen);
	if ((rc = fetch_one(db, s, &r)) <= 0)
		return rc;
	bcn_jobdb_str_fix(&r, 0, se->user, sizeof(se->user));
	bcn_jobdb_str_fix(&r, 1, role, sizeof(role));
	bcn_jobdb_str_fix(&r, 2, se->csrf, sizeof(se->csrf));
	se->role = bcn_user_role_parse(role) == BCN_ROLE_ADMIN ?
		   BCN_ROLE_ADMIN : BCN_ROLE_USER;
	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_i64(&x, &now);
	bcn_jobdb_b_str(&x, token_hash, 0);
	if ((rc = affected(db, SE_TOUCH, sql_se_touch, &x)) < 0)
		return rc;
	se->last_seen = now;
	return 1;
}

int bcn_jobdb_session_del(struct bcn_jobdb *db, const char *token_hash)
{
	struct binds x;
	int rc;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_str(&x, token_hash, 0);
	rc = affected(db, SE_DEL, sql_se_del, &x);
	return rc < 0 ? rc : rc > 0;
}

int bcn_jobdb_sessions_expire(struct bcn_jobdb *db, int64_t now)
{
	struct binds x;

	bcn_jobdb_binds_init(&x);
	bcn_jobdb_b_i64(&x, &now);
	return affected(db, SE_EXPIRE, sql_se_expire, &x);
}
