/* libFuzzer target of bcn_web_login_parse (web/auth.h): the first byte
 * picks the content type (JSON, form, another), the rest is the body.
 * Whatever it parses must be bounded, NUL-terminated and, on success, a
 * valid user name with a password that fits; it never reads past the
 * buffer (ASan). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "jobdb/users.h"
#include "web/auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const types[] = {
		"application/json", "application/x-www-form-urlencoded",
		"text/plain", NULL,
	};
	char user[BCN_USER_NAME_MAX + 1], pw[BCN_USER_PASSWORD_MAX + 1];
	const char *body;
	char *copy;
	int rc;

	if (!size)
		return 0;
	copy = malloc(size - 1 ? size - 1 : 1);     /* exactly the body */
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	body = copy;
	rc = bcn_web_login_parse(types[data[0] % 4], body, size - 1, user,
				 sizeof(user), pw, sizeof(pw));
	if (memchr(user, '\0', sizeof(user)) == NULL ||
	    memchr(pw, '\0', sizeof(pw)) == NULL)
		abort();
	if (rc == 0 && !bcn_user_name_ok(user))
		abort();
	if (rc != 0 && rc != -EPROTO && rc != -EINVAL && rc != -ENOENT &&
	    rc != -BCN_ESYNTAX)
		abort();
	free(copy);
	return 0;
}
