// Job search (GET /api/v1/jobs): a form, a list linking to the reports.
// The form's values live in the page's address, so a search is a link.
import {
  api, page, put, link, table, note, showError, bytes, num, when, param,
  isAdmin, inputToEpoch, epochToInput,
} from './common.js';

const FIELDS = ['user', 'from', 'to', 'state', 'mode', 'min_bytes', 'limit', 'offset'];

async function search(q) {
  put('jobs', note('info', 'Searching...'));
  try {
    const js = await api('jobs', q);
    const jobs = js.jobs || [];
    if (!jobs.length) { put('jobs', note('info', 'No job matches.')); return; }
    const off = Number(js.offset || 0);
    const more = jobs.length >= js.limit ?
      link('jobs.html', { ...q, offset: off + jobs.length }, 'next page') : '';
    put('jobs', table(['job', 'name', 'user', 'nodes', 'start', 'end', 'state', 'read', 'written', 'mode'],
      jobs.map((j) => [link('job.html', { id: j.job }, String(j.job)), j.name, j.user,
        `${num(j.nnodes)} (${j.nodelist})`, when(j.start), j.end ? when(j.end) : 'running',
        j.state, bytes(j.read_bytes), bytes(j.write_bytes), j.mode || '-'])), more);
  } catch (e) {
    showError('jobs', e);
  }
}

page('jobs.html', async () => {
  const q = {};
  for (const f of FIELDS) if (param(f)) q[f] = param(f);
  if (!isAdmin()) document.getElementById('jobs-user-label').hidden = true;
  for (const f of ['user', 'state', 'mode', 'limit']) if (q[f]) document.getElementById('jobs-' + f).value = q[f];
  if (q.min_bytes) document.getElementById('jobs-min').value = q.min_bytes;
  for (const f of ['from', 'to'])
    if (/^\d+$/.test(q[f] || '')) document.getElementById('jobs-' + f).value = epochToInput(Number(q[f]));
  document.getElementById('jobs-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const n = {};
    const v = (id) => document.getElementById(id).value.trim();
    if (isAdmin()) n.user = v('jobs-user');
    n.from = inputToEpoch(v('jobs-from'));
    n.to = inputToEpoch(v('jobs-to'));
    n.state = v('jobs-state'); n.mode = v('jobs-mode'); n.min_bytes = v('jobs-min');
    n.limit = v('jobs-limit');
    const qs = new URLSearchParams();
    for (const [k, x] of Object.entries(n)) if (x !== '') qs.append(k, String(x));
    location.assign('jobs.html?' + qs);
  });
  await search(q);
});
