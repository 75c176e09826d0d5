/* Unit tests of jobdb/users against a private mariadbd (tests/unit/
 * mariadb_fixture.h): a password hash checks the right password and no
 * other, and two hashes of one password differ (salted); users are
 * added once, found, changed and deleted with their sessions; a session
 * is found by its token hash until it expires, and never once its user
 * is disabled, deleted or given a new password; names are validated. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/error.h"
#include "jobdb/users.h"
#include "mariadb_fixture.h"

#define S(x) ((int64_t)(x) * 1000000000ll)
#define T0 S(1795000000)
#define TOK_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define TOK_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define CSRF "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"

static struct mdb m;
static struct bcn_jobdb *db;

static int setup(void **state)
{
	char err[512];

	(void)state;
	if (!mdb_installed()) {
		fprintf(stderr, "users_test: mariadbd is not installed\n");
		return -1;
	}
	if (mdb_start(&m))
		return -1;
	if (bcn_jobdb_open(&m.cfg, &db, err, sizeof(err))) {
		fprintf(stderr, "users_test: %s\n", err);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	bcn_jobdb_close(db);
	mdb_stop(&m);
	return 0;
}

static int empty(void **state)
{
	static const char *const sql[] = { "DELETE FROM beacon.sessions",
		"DELETE FROM beacon.users", NULL };

	(void)state;
	return mdb_root(&m, sql);
}

static void hashing(void **state)
{
	char h1[BCN_USER_HASH_MAX], h2[BCN_USER_HASH_MAX];

	(void)state;
	assert_int_equal(bcn_user_hash_password("secret-1", 8, h1), 0);
	assert_int_equal(bcn_user_hash_password("secret-1", 8, h2), 0);
	assert_string_not_equal(h1, h2);
	assert_non_null(strstr(h1, "$argon2id$"));
	assert_int_equal(bcn_user_check_password(h1, "secret-1", 8), 1);
	assert_int_equal(bcn_user_check_password(h2, "secret-1", 8), 1);
	assert_int_equal(bcn_user_check_password(h1, "secret-2", 8), 0);
	assert_int_equal(bcn_user_check_password(h1, "secret-", 7), 0);
	assert_int_equal(bcn_user_check_password("", "secret-1", 8), 0);
	assert_int_equal(bcn_user_hash_password("short", 5, h1), -BCN_ERANGE);
}

static void names(void **state)
{
	(void)state;
	assert_true(bcn_user_name_ok("alice"));
	assert_true(bcn_user_name_ok("a.b_c-1"));
	assert_false(bcn_user_name_ok(""));
	assert_false(bcn_user_name_ok("-x"));
	assert_false(bcn_user_name_ok(".x"));
	assert_false(bcn_user_name_ok("a b"));
	assert_false(bcn_user_name_ok("a'; DROP TABLE users; --"));
	assert_int_equal(bcn_user_role_parse("admin"), BCN_ROLE_ADMIN);
	assert_int_equal(bcn_user_role_parse("user"), BCN_ROLE_USER);
	assert_true(bcn_user_role_parse("root") < 0);
}

static void accounts(void **state)
{
	char h[BCN_USER_HASH_MAX];
	struct bcn_user u;

	(void)state;
	assert_int_equal(bcn_user_hash_password("password-a", 10, h), 0);
	assert_int_equal(bcn_jobdb_user_add(db, "alice", BCN_ROLE_ADMIN, h, T0), 0);
	assert_int_equal(bcn_jobdb_user_add(db, "alice", BCN_ROLE_USER, h, T0),
			 -EEXIST);
	assert_int_equal(bcn_jobdb_user_add(db, "bad name", 0, h, T0), -EINVAL);
	assert_int_equal(bcn_jobdb_user_get(db, "alice", &u), 1);
	assert_string_equal(u.name, "alice");
	assert_int_equal(u.role, BCN_ROLE_ADMIN);
	assert_int_equal(u.created, T0);
	assert_false(u.disabled);
	assert_int_equal(bcn_user_check_password(u.hash, "password-a", 10), 1);
	assert_int_equal(bcn_jobdb_user_get(db, "bob", &u), 0);
	assert_int_equal(bcn_user_hash_password("password-b", 10, h), 0);
	assert_int_equal(bcn_jobdb_user_passwd(db, "alice", h), 1);
	assert_int_equal(bcn_jobdb_user_passwd(db, "bob", h), 0);
	assert_int_equal(bcn_jobdb_user_get(db, "alice", &u), 1);
	assert_int_equal(bcn_user_check_password(u.hash, "password-a", 10), 0);
	assert_int_equal(bcn_user_check_password(u.hash, "password-b", 10), 1);
	assert_int_equal(bcn_jobdb_user_del(db, "alice"), 1);
	assert_int_equal(bcn_jobdb_user_del(db, "alice"), 0);
	assert_int_equal(bcn_jobdb_user_get(db, "alice", &u), 0);
}

static void sessions(void **state)
{
	char h[BCN_USER_HASH_MAX];
	struct bcn_session s;
	static const char *const disable[] = {
		"UPDATE beacon.users SET disabled = 1 WHERE name = 'bob'", NULL };

	(void)state;
	assert_int_equal(bcn_user_hash_password("password-a", 10, h), 0);
	assert_int_equal(bcn_jobdb_user_add(db, "alice", BCN_ROLE_USER, h, T0), 0);
	assert_int_equal(bcn_jobdb_user_add(db, "bob", BCN_ROLE_ADMIN, h, T0), 0);
	assert_int_equal(bcn_jobdb_session_put(db, TOK_A, "alice", CSRF, T0,
					       T0 + S(3600)), 0);
	assert_int_equal(bcn_jobdb_session_put(db, TOK_B, "bob", CSRF, T0,
					       T0 + S(60)), 0);
	assert_int_equal(bcn_jobdb_session_get(db, TOK_A, T0 + S(10), &s), 1);
	assert_string_equal(s.user, "alice");
	assert_int_equal(s.role, BCN_ROLE_USER);
	assert_string_equal(s.csrf, CSRF);
	assert_int_equal(s.last_seen, T0 + S(10));
	assert_int_equal(bcn_jobdb_session_get(db, TOK_B, T0 + S(10), &s), 1);
	assert_int_equal(s.role, BCN_ROLE_ADMIN);
	/* expired */
	assert_int_equal(bcn_jobdb_session_get(db, TOK_B, T0 + S(60), &s), 0);
	assert_int_equal(bcn_jobdb_session_get(db, "nope", T0, &s), 0);
	/* one token hash, one session; a disabled user's is no session */
	assert_int_equal(bcn_jobdb_session_put(db, TOK_B, "bob", CSRF, T0,
					       T0 + S(60)) < 0, 1);
	assert_int_equal(mdb_root(&m, disable), 0);
	assert_int_equal(bcn_jobdb_session_get(db, TOK_B, T0 + S(10), &s), 0);
	assert_int_equal(bcn_jobdb_sessions_expire(db, T0 + S(60)), 1);
	/* a new password ends the sessions */
	assert_int_equal(bcn_jobdb_user_passwd(db, "alice", h), 1);
	assert_int_equal(bcn_jobdb_session_get(db, TOK_A, T0 + S(20), &s), 0);
	assert_int_equal(bcn_jobdb_session_put(db, TOK_A, "alice", CSRF, T0,
					       T0 + S(3600)), 0);
	assert_int_equal(bcn_jobdb_session_del(db, TOK_A), 1);
	assert_int_equal(bcn_jobdb_session_del(db, TOK_A), 0);
	assert_int_equal(bcn_jobdb_session_get(db, TOK_A, T0 + S(20), &s), 0);
	/* deleting a user ends their sessions */
	assert_int_equal(bcn_jobdb_session_put(db, TOK_A, "alice", CSRF, T0,
					       T0 + S(3600)), 0);
	assert_int_equal(bcn_jobdb_user_del(db, "alice"), 1);
	assert_int_equal(mdb_value(&m, "SELECT COUNT(*) FROM beacon.sessions"),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hashing),
		cmocka_unit_test(names),
		cmocka_unit_test_setup(accounts, empty),
		cmocka_unit_test_setup(sessions, empty),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
