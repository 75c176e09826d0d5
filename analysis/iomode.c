/* Who moved a job's bytes, and its I/O mode (iomode.h). */
#include <stdio.h>
#include <string.h>

#include "analysis/iomode.h"
#include "analysis/report.h"

void bcn_iomode_init(struct bcn_iomode *m, size_t max)
{
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

int bcn_iomode_add(struct bcn_iomode *m, const struct bcn_record *r,
		   uint64_t bytes)
{
	const struct bcn_rec_io *io = &r->u.io;
	uint64_t h = bcn_tally_hash(0, r->node, strlen(r->node)), *v;
	bool fresh;
	int rc;

	h = bcn_tally_hash(h, &io->pid, sizeof(io->pid));
	h = bcn_tally_hash(h, &io->rank, sizeof(io->rank));
	if ((rc = bcn_u64map_get(&m->procs, h, &v, &fresh)))
		return rc;
	*v += bytes;
	if ((rc = bcn_u64map_get(&m->file_bytes, io->file, &v, &fresh)))
		return rc;
	*v += bytes;
	if ((rc = bcn_u64map_get(&m->pairs, bcn_tally_hash(h, &io->file,
			sizeof(io->file)), &v, &fresh)) || !fresh)
		return rc;
	if ((rc = bcn_u64map_get(&m->files, io->file, &v, &fresh)))
		return rc;
	++*v;
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
