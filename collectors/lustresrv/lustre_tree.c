/* Finding Lustre targets and their statistics files below a root
 * directory, and reading those files: the only part of the Lustre target
 * server that does I/O (the formats of collectors/lustre are pure). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/lustresrv/lustre_tree.h"
#include "common/error.h"

#define OSD_PREFIX "osd-"

static const char *const ost_bases[] = {
	"proc/fs/lustre/obdfilter",
	"sys/kernel/debug/lustre/obdfilter",
	"sys/fs/lustre/obdfilter",
};

static const char *const mdt_bases[] = {
	"proc/fs/lustre/mdt",
	"sys/kernel/debug/lustre/mdt",
	"sys/fs/lustre/mdt",
};

#define MDS18_BASE "proc/fs/lustre/mds"         /* Lustre 1.8 */

/* Directories holding osd-<backend>/<target>/brw_stats. */
static const char *const osd_parents[] = {
	"proc/fs/lustre",
	"sys/kernel/debug/lustre",
};

#define NBASES 3
_Static_assert(sizeof(ost_bases) / sizeof(ost_bases[0]) == NBASES, "bases");
_Static_assert(sizeof(mdt_bases) / sizeof(mdt_bases[0]) == NBASES, "bases");

static int joinf(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* snprintf that reports truncation as -BCN_EFULL. */
static int joinf(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		if (len)
			out[0] = '\0';
		return -BCN_EFULL;
	}
	return 0;
}

/* root with its trailing slashes removed ("/" becomes ""). */
static int root_len(const char *root)
{
	size_t n = strlen(root);

	while (n > 0 && root[n - 1] == '/')
		n--;
	return (int)n;
}

static bool is_dir_entry(DIR *d, const struct dirent *e)
{
	struct stat st;

	if (e->d_type == DT_DIR)
		return true;
	if (e->d_type != DT_UNKNOWN && e->d_type != DT_LNK)
		return false;
	return fstatat(dirfd(d), e->d_name, &st, 0) == 0 &&
	       S_ISDIR(st.st_mode);
}

static bool exists(const char *path, bool want_dir)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return false;
	return want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

/* Calls fn for each directory below root/base (filtered by need, if
 * given: a substring the name must hold). Returns names seen or fn's
 * negative return; a missing base counts nothing. */
static int list_base(const char *root, const char *base, const char *need,
		     bcn_lustre_name_fn *fn, void *arg)
{
	char path[BCN_LUSTRE_PATH_MAX];
	struct dirent *e;
	int n = 0, rc = 0;
	DIR *d;

	if (joinf(path, sizeof(path), "%.*s/%s", root_len(root), root, base))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' ||
		    strlen(e->d_name) >= BCN_LUSTRE_TARGET_MAX)
			continue;
		if (need && !strstr(e->d_name, need))
			continue;
		if (!is_dir_entry(d, e))
			continue;
		rc = fn(arg, e->d_name);
		if (rc < 0)
			break;
		n++;
	}
	closedir(d);
	return rc < 0 ? rc : n;
}

int bcn_lustre_list_targets(const char *root, enum bcn_lustre_role role,
			    bcn_lustre_name_fn *fn, void *arg)
{
	const char *const *bases = role == BCN_LUSTRE_OST ? ost_bases :
							     mdt_bases;
	int i, rc, n = 0;

	for (i = 0; i < NBASES; i++) {
		rc = list_base(root, bases[i], NULL, fn, arg);
		if (rc < 0)
			return rc;
		n += rc;
	}
	if (role == BCN_LUSTRE_MDT) {
		rc = list_base(root, MDS18_BASE, "-MDT", fn, arg);
		if (rc < 0)
			return rc;
		n += rc;
	}
	return n;
}

/* The first root/base/name/file that exists (a directory if want_dir),
 * into out; "" if none. */
static int first_of(const char *root, const char *const *bases, int nbases,
		    const char *name, const char *file, bool want_dir,
		    char *out, size_t len)
{
	int i, rc;

	for (i = 0; i < nbases; i++) {
		rc = joinf(out, len, "%.*s/%s/%s/%s", root_len(root), root,
			   bases[i], name, file);
		if (rc)
			return rc;
		if (exists(out, want_dir))
			return 0;
	}
	out[0] = '\0';
	return 0;
}

/* root/<parent>/osd-<backend>/name/brw_stats, the first that exists. */
static int find_osd_brw(const char *root, const char *parent,
			const char *name, char *out, size_t len)
{
	char dir[BCN_LUSTRE_PATH_MAX];
	struct dirent *e;
	int rc = 0;
	DIR *d;

	out[0] = '\0';
	if (joinf(dir, sizeof(dir), "%.*s/%s", root_len(root), root, parent))
		return -BCN_EFULL;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, OSD_PREFIX, strlen(OSD_PREFIX)) != 0)
			continue;
		rc = joinf(out, len, "%s/%s/%s/brw_stats", dir, e->d_name,
			   name);
		if (rc)
			break;
		if (exists(out, false))
			break;
		out[0] = '\0';
	}
	closedir(d);
	return rc;
}

static int resolve_brw(const char *root, const char *name,
		       struct bcn_lustre_target *t)
{
	size_t len = sizeof(t->brw_stats);
	int rc;

	rc = first_of(root, ost_bases, 1, name, "brw_stats", false,
		      t->brw_stats, len);
	if (rc || t->brw_stats[0])
		return rc;
	rc = find_osd_brw(root, osd_parents[0], name, t->brw_stats, len);
	if (rc || t->brw_stats[0])
		return rc;
	rc = find_osd_brw(root, osd_parents[1], name, t->brw_stats, len);
	if (rc || t->brw_stats[0])
		return rc;
	return first_of(root, ost_bases + 1, 1, name, "brw_stats", false,
			t->brw_stats, len);
}

int bcn_lustre_resolve(const char *root, enum bcn_lustre_role role,
		       const char *name, struct bcn_lustre_target *t)
{
	const char *const *bases = role == BCN_LUSTRE_OST ? ost_bases :
							     mdt_bases;
	const char *stats = role == BCN_LUSTRE_OST ? "stats" : "md_stats";
	size_t nlen = strlen(name);
	int rc;

	if (nlen == 0 || nlen >= sizeof(t->name) || strchr(name, '/') ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	memcpy(t->name, name, nlen + 1);
	t->brw_stats[0] = '\0';
	rc = first_of(root, bases, NBASES, name, stats, false, t->stats,
		      sizeof(t->stats));
	if (!rc && !t->stats[0] && role == BCN_LUSTRE_MDT)
		rc = first_of(root, (const char *const[]){ MDS18_BASE }, 1,
			      name, "stats", false, t->stats,
			      sizeof(t->stats));
	if (!rc)
		rc = first_of(root, bases, NBASES, name, "job_stats", false,
			      t->job_stats, sizeof(t->job_stats));
	if (!rc)
		rc = first_of(root, bases, NBASES, name, "exports", true,
			      t->exports, sizeof(t->exports));
	if (!rc && role == BCN_LUSTRE_OST)
		rc = resolve_brw(root, name, t);
	return rc;
}

int bcn_lustre_stream(const char *path, char *buf, size_t len,
		      bcn_lustre_chunk_fn *fn, void *arg)
{
	int fd, rc = 0;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		rc = fn(arg, buf, (size_t)n);
		if (rc < 0)
			break;
	}
	close(fd);
	return rc;
}

int bcn_lustre_read_at(int dirfd, const char *rel, char *buf, size_t len,
		       size_t *n)
{
	size_t got = 0;
	int fd, rc = 0;
	ssize_t r;

	fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (got == len) {
			char c;

			/* full: fine only if the file ends exactly here */
			do
				r = read(fd, &c, 1);
			while (r < 0 && errno == EINTR);
			if (r != 0)
				rc = r < 0 ? -errno : -BCN_EFULL;
			break;
		}
		r = read(fd, buf + got, len - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	*n = got;
	return rc;
}
