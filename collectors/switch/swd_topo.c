/* beacon-swd's topology records (swd_topo.h): the file I/O around the
 * pure parser of topofile.c. */
#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "collectors/switch/swd_topo.h"
#include "collectors/switch/topofile.h"
#include "common/error.h"
#include "proto/record.h"

struct send {
	struct bcn_collector *c;
	int64_t now;
	uint64_t n;
};

static int send_link(void *arg, const struct bcn_topo_link *l)
{
	struct send *s = arg;
	struct bcn_record r;
	int rc;

	if (s->n >= BCN_SWD_TOPO_LINKS_MAX)
		return -BCN_EFULL;
	bcn_topo_link_record(l, s->now, &r);
	s->n++;
	/* a failed add is counted by the collector; only memory stops us */
	rc = bcn_collector_add(s->c, &r);
	return rc == -ENOMEM ? rc : 0;
}

static bool changed(const struct bcn_swd_topo *t, const struct stat *st)
{
	int64_t m = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;

	return st->st_dev != t->dev || st->st_ino != t->ino ||
	       st->st_size != t->size || m != t->mtime_ns;
}

int bcn_swd_topo_sample(struct bcn_swd_topo *t, struct bcn_collector *c,
			int64_t now)
{
	struct send s = { c, now, 0 };
	struct stat st;
	size_t line = 0;
	int rc;

	if (!t->path || !t->path[0])
		return 0;
	if (stat(t->path, &st)) {
		bcn_complain(&t->c, BCN_LOG_WARNING, "topology_file %s: %s",
			     t->path, bcn_strerror(-errno));
		return 0;
	}
	if (t->sent && !changed(t, &st) && now - t->sent < t->every_ns)
		return 0;
	if (!t->buf.max)
		bcn_buf_init(&t->buf, BCN_SWD_TOPO_FILE_MAX);
	bcn_buf_reset(&t->buf);
	if ((rc = bcn_buf_read_file(&t->buf, t->path))) {
		bcn_complain(&t->c, BCN_LOG_WARNING, "topology_file %s: %s",
			     t->path, bcn_strerror(rc));
		return rc == -ENOMEM ? rc : 0;
	}
	rc = bcn_topofile_parse((const char *)t->buf.data, t->buf.len,
				send_link, &s, &line);
	if (rc == -ENOMEM)
		return rc;
	if (rc)         /* what came before the error went out */
		bcn_complain(&t->c, BCN_LOG_WARNING, "topology_file %s: %s%s "
			     "at line %zu (read again when it changes)",
			     t->path, rc == -BCN_EFULL ? "more cabled ports "
			     "than the limit, " : "", bcn_strerror(rc), line);
	else if (s.n != t->links || changed(t, &st))
		BCN_INFO("topology_file %s: %" PRIu64 " cabled switch ports",
			 t->path, s.n);
	if (!rc)
		bcn_complain_release(&t->c, BCN_LOG_NOTICE, "topology_file %s "
				     "is read again", t->path);
	t->sent = now;
	t->links = s.n;
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	t->size = st.st_size;
	t->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return 0;
}

void bcn_swd_topo_free(struct bcn_swd_topo *t)
{
	bcn_buf_free(&t->buf);
}
