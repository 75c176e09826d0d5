/* Who moved a job's bytes, and its I/O mode (iomode.h). */
#include <stdio.h>
#include <string.h>

#include "analysis/iomode.h"
#include "analysis/report.h"

void bcn_iomode_init(struct bcn_iomode *m, size_t max)
{
	m->run.on = false;
	bcn_u64map_init(&m->procs, max);
	bcn_u64map_init(&m->pairs, max);
	bcn_u64map_init(&m->files, max);
	bcn_u64map_init(&m->file_bytes, max);
}

void bcn_iomode_free(struct bcn_iomode *m)
{
	bcn_u64map_free(&m->procs);
	bcn_u64map_free(&m->pairs);
	bcn_u64map_free(&m->files);
	bcn_u64map_free(&m->file_bytes);
}

/* Counts bytes for one process (node, pid, rank) and file. */
static int count(struct bcn_iomode *m, const char *node, uint64_t pid,
		 int64_t rank, uint64_t file, uint64_t bytes)
{
	uint64_t h = bcn_tally_hash(0, node, strlen(node)), *v;
	bool fresh;
	int rc;

	h = bcn_tally_hash(h, &pid, sizeof(pid));
	h = bcn_tally_hash(h, &rank, sizeof(rank));
	if ((rc = bcn_u64map_get(&m->procs, h, &v, &fresh)))
		return rc;
	*v += bytes;
	if ((rc = bcn_u64map_get(&m->file_bytes, file, &v, &fresh)))
		return rc;
	*v += bytes;
	if ((rc = bcn_u64map_get(&m->pairs, bcn_tally_hash(h, &file,
			sizeof(file)), &v, &fresh)) || !fresh)
		return rc;
	if ((rc = bcn_u64map_get(&m->files, file, &v, &fresh)))
		return rc;
	++*v;
	return 0;
}

int bcn_iomode_flush(struct bcn_iomode *m)
{
	if (!m->run.on)
		return 0;
	m->run.on = false;
	return count(m, m->run.node, m->run.pid, m->run.rank, m->run.file,
		     m->run.bytes);
}

int bcn_iomode_add(struct bcn_iomode *m, const struct bcn_record *r,
		   uint64_t bytes)
{
	const struct bcn_rec_io *io = &r->u.io;
	size_t len;
	int rc;

	if (m->run.on && m->run.pid == io->pid && m->run.file == io->file &&
	    m->run.rank == io->rank && !strcmp(m->run.node, r->node)) {
		m->run.bytes += bytes;
		return 0;
	}
	if ((rc = bcn_iomode_flush(m)))
		return rc;
	len = strnlen(r->node, BCN_NODE_MAX + 1);
	if (len > BCN_NODE_MAX)         /* no sender names one this long */
		return count(m, r->node, io->pid, io->rank, io->file, bytes);
	memcpy(m->run.node, r->node, len);
	m->run.node[len] = '\0';
	m->run.pid = io->pid;
	m->run.rank = io->rank;
	m->run.file = io->file;
	m->run.bytes = bytes;
	m->run.on = true;
	return 0;
}

void bcn_iomode_result(const struct bcn_iomode *m, uint64_t bytes,
		       struct bcn_iomode_result *out)
{
	struct bcn_report_mode_in in = { .bytes = bytes };

	memset(out, 0, sizeof(*out));
	out->procs = in.procs = m->procs.n;
	out->files = m->files.n;
	for (size_t i = 0; i < m->files.cap; i++) {
		uint64_t np = m->files.vals[i], b = 0;

		if (!m->files.used[i])
			continue;
		(void)bcn_u64map_find(&m->file_bytes, m->files.keys[i], &b);
		out->shared_files += np > 1;
		*(np > 1 ? &in.shared_bytes : &in.private_bytes) += b;
		if (np * 2 > in.procs)
			in.global_bytes += b;
	}
	for (size_t i = 0; i < m->procs.cap; i++)
		if (m->procs.used[i] && m->procs.vals[i] > out->busiest_proc_bytes)
			out->busiest_proc_bytes = m->procs.vals[i];
	in.top_proc_bytes = out->busiest_proc_bytes;
	snprintf(out->mode, sizeof(out->mode), "%s", bcn_report_mode(&in));
}
