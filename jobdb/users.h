/* Accounts and sessions of the web service in the job database
 * (docs/api.md, "Access control"): users with a role and a password hash
 * (libsodium's crypto_pwhash_str, Argon2id: slow and salted), and the
 * sessions of logged-in users, kept by a hash of their token (the token
 * itself is never stored) with a CSRF token and an expiry. Every
 * statement is prepared; no SQL is built from data. */
#ifndef BCN_JOBDB_USERS_H
#define BCN_JOBDB_USERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobdb/jobdb.h"

#define BCN_USER_NAME_MAX 64            /* bytes of a user name */
#define BCN_USER_HASH_MAX 128           /* crypto_pwhash_STRBYTES */
#define BCN_USER_PASSWORD_MIN 8
#define BCN_USER_PASSWORD_MAX 1024
#define BCN_SESSION_HASH_LEN 64         /* hex of a 32-byte token hash */
#define BCN_SESSION_CSRF_LEN 64         /* hex of a 32-byte random token */

enum bcn_user_role {
	BCN_ROLE_USER = 0,              /* sees their own jobs only */
	BCN_ROLE_ADMIN = 1,             /* sees everything */
};

struct bcn_user {
	char name[BCN_USER_NAME_MAX + 1];
	int role;                       /* enum bcn_user_role */
	int64_t created;                /* ns */
	bool disabled;
	char hash[BCN_USER_HASH_MAX];   /* crypto_pwhash_str's text */
};

struct bcn_session {
	char user[BCN_USER_NAME_MAX + 1];
	int role;
	char csrf[BCN_SESSION_CSRF_LEN + 1];
	int64_t created, expires, last_seen;
};

/* Whether name is a valid user name: 1 to BCN_USER_NAME_MAX of
 * [A-Za-z0-9._-], not starting with '-' or '.'. */
bool bcn_user_name_ok(const char *name);

/* "admin" or "user"; parse returns the role or -BCN_ESYNTAX. */
const char *bcn_user_role_name(int role);
int bcn_user_role_parse(const char *s);

/* Hashes password (n bytes, BCN_USER_PASSWORD_MIN..MAX) into hash
 * (BCN_USER_HASH_MAX) with crypto_pwhash_str at the interactive cost.
 * Returns 0, -BCN_ERANGE (length) or -ENOMEM. */
int bcn_user_hash_password(const char *password, size_t n, char *hash);

/* 1 when password matches hash, 0 when not (or no hash). */
int bcn_user_check_password(const char *hash, const char *password, size_t n);

/* Adds a user: 0, -EEXIST, or a negative code. */
int bcn_jobdb_user_add(struct bcn_jobdb *db, const char *name, int role,
		       const char *hash, int64_t now);

/* Deletes a user and their sessions: 1, 0 when none, or < 0. */
int bcn_jobdb_user_del(struct bcn_jobdb *db, const char *name);

/* Replaces a user's password hash and ends their sessions: 1, 0 when
 * there is no such user, or < 0. */
int bcn_jobdb_user_passwd(struct bcn_jobdb *db, const char *name,
			  const char *hash);

/* One user into *u: 1, 0 when none, or < 0. */
int bcn_jobdb_user_get(struct bcn_jobdb *db, const char *name,
		       struct bcn_user *u);

/* Stores a new session for user, keyed by the hex hash of its token. */
int bcn_jobdb_session_put(struct bcn_jobdb *db, const char *token_hash,
			  const char *user, const char *csrf, int64_t now,
			  int64_t expires);

/* The live session (not expired at now, of an enabled user) with this
 * token hash into *s, and its last_seen set to now: 1, 0 when none, or
 * < 0. */
int bcn_jobdb_session_get(struct bcn_jobdb *db, const char *token_hash,
			  int64_t now, struct bcn_session *s);

/* Ends one session: 1, 0 when none, or < 0. */
int bcn_jobdb_session_del(struct bcn_jobdb *db, const char *token_hash);

/* Deletes the sessions expired at now: how many, or < 0. */
int bcn_jobdb_sessions_expire(struct bcn_jobdb *db, int64_t now);

#endif
