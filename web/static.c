/* Static files from web_static_dir (docs/api.md, "Static files"), and
 * the OpenAPI document built into the program (web/openapi.json). A
 * path with a "..", a hidden segment or a backslash is refused (403), as
 * is one that resolves (symbolic links followed) outside the
 * directory; only regular files up to STATIC_MAX are served. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "web/web_int.h"

#define STATIC_MAX (16u << 20)

extern const unsigned char bcn_web_openapi_json[];
extern const size_t bcn_web_openapi_json_len;

int bcn_web_openapi(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	(void)q;
	return bcn_buf_add(&p->body, bcn_web_openapi_json,
			   bcn_web_openapi_json_len);
}

static const char *type_of(const char *path)
{
	static const char *const t[][2] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".json", "application/json" },
		{ ".svg", "image/svg+xml" },
		{ ".png", "image/png" },
		{ ".ico", "image/x-icon" },
		{ ".txt", "text/plain; charset=utf-8" },
	};
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t e = strlen(t[i][0]);

		if (n > e && !strcmp(path + n - e, t[i][0]))
			return t[i][1];
	}
	return "application/octet-stream";
}

/* Whether every segment of path is a plain name. */
static bool plain(const char *path)
{
	if (path[0] != '/' || strchr(path, '\\'))
		return false;
	for (const char *s = path; *s; s++)
		if (s[0] == '/' && s[1] == '.')
			return false;   /* "..", ".hidden", "." */
	return !strstr(path, "//");
}

int bcn_web_static(struct bcn_web_req *q, struct bcn_web_resp *p)
{
	const char *dir = q->w->cfg->static_dir;
	char want[PATH_MAX], real[PATH_MAX], root[PATH_MAX];
	struct stat st;
	size_t rl;

	if (strcmp(q->method, "GET") && strcmp(q->method, "HEAD")) {
		snprintf(p->allow, sizeof(p->allow), "GET, HEAD");
		return bcn_web_error(p, 405, "method not allowed", NULL);
	}
	if (!dir[0])
		return bcn_web_error(p, 404, "not found", NULL);
	if (!plain(q->path))
		return bcn_web_error(p, 403, "path refused", "path");
	if (snprintf(want, sizeof(want), "%s%s%s", dir, q->path,
		     q->path[strlen(q->path) - 1] == '/' ? "index.html" : "") >=
	    (int)sizeof(want))
		return bcn_web_error(p, 414, "path too long", "path");
	if (!realpath(dir, root) || !realpath(want, real) ||
	    stat(real, &st) || !S_ISREG(st.st_mode))
		return bcn_web_error(p, 404, "not found", NULL);
	rl = strlen(root);
	if (strncmp(real, root, rl) || real[rl] != '/')
		return bcn_web_error(p, 403, "path refused", "path");
	if ((uint64_t)st.st_size > STATIC_MAX)
		return bcn_web_error(p, 404, "not found", NULL);
	bcn_buf_reset(&p->body);
	if (bcn_buf_read_file(&p->body, real))
		return bcn_web_error(p, 404, "not found", NULL);
	p->status = 200;
	p->type = type_of(real);
	return 0;
}
