// The job report (GET /api/v1/jobs/ID, the object of `beacon job ID
// --json`, docs/report.md): the coverage line first, bandwidth over time
// of the compute, forwarding and OST layers on one zoomable axis with the
// I/O phases marked, the request sizes and operations, the I/O mode,
// metadata, the forwarding nodes and OSTs used with their load, the files
// and access patterns, where the I/O time went with the stragglers, the
// time x node heatmap, anomalies and the findings with what to do. The forwarding and OST layers' series are the components'
// own (GET /api/v1/series, their whole load) over the job's window.
import {
  api, page, put, el, link, table, note, chart, showError, bytes, rate, num,
  pct, ms, when, dur, param, seriesRate, zeroGaps, isAdmin,
} from './common.js';

const PER_LAYER_MAX = 32;   // components of a layer whose series are fetched

function facts(pairs) {
  return el('dl', { className: 'facts' },
    pairs.map(([k, v]) => [el('dt', null, k), el('dd', null, v)]));
}

function card(title, ...body) {
  return el('section', { className: 'card' }, el('h2', null, title), ...body);
}

// The compute layer from the report's series: [t ms, bytes/s].
function clientSeries(r, key) {
  const s = r.series || {};
  const t0 = ms(s.from), step = s.step || 1;
  return (s[key] || []).map((v, i) => [t0 + i * step * 1000, v / step]);
}

// Sums /api/v1/series answers point-wise into [t ms, bytes/s].
function sumSeries(answers, key) {
  const m = new Map();
  for (const js of answers)
    for (const [t, v] of seriesRate(js, key)) m.set(t, (m.get(t) || 0) + v);
  return [...m.entries()].sort((a, b) => a[0] - b[0]);
}

// The components' sums, with their empty buckets as zeros.
function sumZero(answers, key, step) {
  return zeroGaps(sumSeries(answers, key).filter((p) => p[1] > 0), step * 1000);
}

async function layerSeries(layer, names, from, to, step) {
  const got = await Promise.allSettled(names.slice(0, PER_LAYER_MAX).map((entity) =>
    api('series', { layer, entity, from, to, step })));
  const ok = got.filter((g) => g.status === 'fulfilled').map((g) => g.value);
  const refused = got.filter((g) => g.status === 'rejected').map((g) => g.reason);
  return { ok, refused };
}

function bwOption(lines, marks) {
  return {
    animation: false,
    tooltip: { trigger: 'axis', valueFormatter: (v) => rate(v) },
    legend: { top: 0, type: 'scroll' },
    grid: { left: 80, right: 20, top: 35, bottom: 70 },
    xAxis: { type: 'time' },
    yAxis: { type: 'value', axisLabel: { formatter: (v) => rate(v) } },
    dataZoom: [{ type: 'inside' }, { type: 'slider', bottom: 10 }],
    series: lines.map(([name, data, dash], i) => ({
      name, type: 'line', showSymbol: false, step: 'end', data,
      lineStyle: { type: dash ? 'dashed' : 'solid' },
      markArea: i === 0 ? { silent: true, itemStyle: { color: 'rgba(36,86,166,0.08)' }, data: marks } : undefined,
    })),
  };
}

async function bandwidth(r, where) {
  const who = r.volume_source === 'ost' ? 'job (OST job_stats)' : 'compute';
  const lines = [[who + ' read', clientSeries(r, 'read')], [who + ' write', clientSeries(r, 'write')]];
  const marks = (r.io_phases || []).map((p, i) => [
    { name: 'phase ' + (i + 1), xAxis: ms(p.start) }, { xAxis: ms(p.end) }]);
  const c = chart(where);
  c.setOption(bwOption(lines, marks), true);
  const from = Math.floor(ms(r.start) / 1000);
  const to = Math.ceil((r.end ? ms(r.end) : Date.now()) / 1000);
  if (!(to > from)) return [];
  const step = Math.max(1, Math.ceil(r.series && r.series.step || 1), Math.ceil((to - from) / 2000));
  const fwd = (r.forwarding || []).map((f) => f.node);
  const ost = (r.osts || []).map((o) => o.target);
  const [f, o] = await Promise.all([layerSeries('forward', fwd, from, to, step),
    layerSeries('ost', ost, from, to, step)]);
  lines.push(['forwarding read', sumZero(f.ok, 'read_bytes', step), true],
    ['forwarding write', sumZero(f.ok, 'write_bytes', step), true],
    ['OST read', sumZero(o.ok, 'read_bytes', step), true],
    ['OST write', sumZero(o.ok, 'write_bytes', step), true]);
  c.setOption(bwOption(lines, marks), true);
  const notes = [];
  if (fwd.length > PER_LAYER_MAX || ost.length > PER_LAYER_MAX)
    notes.push(`Only the first ${PER_LAYER_MAX} components of a layer are summed.`);
  for (const e of [...f.refused, ...o.refused].slice(0, 3))
    notes.push(`A component's series was refused (${e.status}): ${e.message}`);
  return notes;
}

function sizesChart(r, where) {
  const h = r.request_sizes || [];
  let last = h.length - 1;
  while (last > 0 && !h[last]) last--;
  let first = 0;
  while (first < last && !h[first]) first++;
  const labels = [], data = [];
  for (let i = first; i <= last; i++) { labels.push(bytes(2 ** i)); data.push(h[i]); }
  chart(where).setOption({
    animation: false, tooltip: { trigger: 'axis' },
    grid: { left: 60, right: 10, top: 10, bottom: 50 },
    xAxis: { type: 'category', data: labels, name: 'size from', nameLocation: 'center', nameGap: 30 },
    yAxis: { type: 'value' },
    series: [{ name: 'operations', type: 'bar', data }],
  }, true);
}

function opsChart(r, where) {
  const ops = Object.entries(r.ops || {}).sort((a, b) => b[1] - a[1]);
  chart(where).setOption({
    animation: false, tooltip: { trigger: 'item' },
    series: [{ name: 'operations', type: 'pie', radius: ['35%', '70%'],
               data: ops.map(([name, value]) => ({ name, value })) }],
  }, true);
}

function loadChart(rows, name, where) {
  chart(where).setOption({
    animation: false, tooltip: { trigger: 'axis', valueFormatter: (v) => bytes(v) },
    legend: { top: 0 },
    grid: { left: 80, right: 10, top: 30, bottom: 60 },
    xAxis: { type: 'category', data: rows.map((p) => p[name]), axisLabel: { rotate: rows.length > 8 ? 45 : 0 } },
    yAxis: { type: 'value', axisLabel: { formatter: (v) => bytes(v) } },
    series: [
      { name: 'this job', type: 'bar', stack: 'b', data: rows.map((p) => p.read_bytes + p.write_bytes) },
      { name: 'others', type: 'bar', stack: 'b',
        data: rows.map((p) => Math.max(0, p.total_read_bytes + p.total_write_bytes - p.read_bytes - p.write_bytes)) },
    ],
  }, true);
}

function evidence(ev) {
  if (!ev || typeof ev !== 'object') return '';
  return Object.entries(ev).map(([k, v]) =>
    `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join(', ');
}

function findings(r) {
  const list = r.findings || [];
  if (!list.length) return note('info', 'No findings.');
  return table(['severity', 'for', 'finding', 'message', 'what to do', 'evidence'], list.map((f) => [
    el('span', { className: 'sev-' + f.severity }, f.severity), f.audience || 'both', f.code, f.message,
    f.fix ? el('code', { className: 'fix' }, f.fix) : '',
    el('span', { className: 'muted' }, evidence(f.evidence))]));
}

const PCT = (x) => (x === undefined || x === null ? '-' : (100 * x).toFixed(0) + '%');

// The files table (docs/report.md, "Files and access patterns"): the
// busiest files or groups of an N-N job's files, the access pattern.
function filesCard(r) {
  const ft = r.file_table;
  if (!ft || !ft.files) return card('Files', note('info', 'No file of this job was traced.'));
  const p = ft.pattern || {}, sm = ft.small || {}, mis = ft.misaligned || {};
  const rows = [...(ft.rows || []), ...(ft.rest && ft.rest.files ? [ft.rest] : [])];
  return card('Files and access patterns' + (r.client_sample ? ' (traced nodes)' : ''), facts([
    ['files', `${num(ft.files)} (${num(ft.read_only)} read-only, ${num(ft.write_only)} write-only, ${num(ft.read_write)} both)`],
    ['access', `consecutive ${PCT(p.consecutive)}, sequential ${PCT(p.sequential)}, random ${PCT(p.random)}`],
    ['small requests', `${PCT(sm.all)} under ${bytes(ft.small_bytes)}`],
    ['misaligned', `${PCT(mis.stripe)} off a ${bytes(ft.stripe_bytes)} stripe, ${PCT(mis.page)} off a page`],
  ]), table(['file or group', 'files', 'processes', 'read', 'written', 'ops', 'common size', 'consecutive', 'random', 'I/O time'],
    rows.map((w) => {
      const ops = w.read_ops + w.write_ops;
      return [el('code', null, w.name), num(w.files), num(w.procs), bytes(w.read_bytes), bytes(w.write_bytes),
        num(ops), w.size_common ? bytes(w.size_common) : '-', ops ? PCT(w.consecutive_ops / ops) : '-',
        ops ? PCT(w.random_ops / ops) : '-', dur(w.read_time + w.write_time + w.meta_time)];
    })));
}

// Where the processes' I/O time went, and the stragglers.
function timeCard(r) {
  const t = r.time, c = r.compute || {};
  const judge = c.nodes || {}, procs = c.procs || {};
  const slow = (j, what) => (j.checked && j.stragglers ? table([what, 'bandwidth', 'of the median', 'I/O time', 'bytes'],
    (j.slowest || []).map((s) => [s.pid ? `${s.node} pid ${s.pid}` : s.node, rate(s.bw), PCT(s.bw_ratio), dur(s.time), bytes(s.bytes)])) : '');
  return card('I/O time and stragglers', t ? facts([
    ['read, write, metadata', `${dur(t.read_s)}, ${dur(t.write_s)}, ${dur(t.meta_s)} over ${num(t.processes)} process(es)`],
    ['per process', `${dur(t.per_process_s)} (busiest ${dur(t.busiest_process_s)}) of a ${dur(t.runtime_s)} run`],
    ['waiting in server queues', `about ${dur(t.server_wait_s)} (forwarded requests × their queueing)`],
    ['straggler nodes', judge.checked ? `${num(judge.stragglers)} of ${num(judge.io)} (median ${rate(judge.median_bw)})` : 'too few nodes to judge'],
  ]) : note('info', 'No timing.'), el('div', { id: 'job-stragglers' }, slow(judge, 'node'), judge.stragglers ? '' : slow(procs, 'process')));
}

// The time x node heatmap (the paper's per-compute-node traffic history).
function heatmapCard(r) {
  const h = r.compute && r.compute.heatmap;
  if (!h || !(h.rows || []).length) return '';
  return card('Compute nodes over time', el('div', { className: 'chart tall', id: 'job-heatmap' }),
    el('p', { className: 'muted' }, `Bytes read and written per node${h.rows.length < h.nodes ? ' group' : ''} and ${dur(h.step)}; nodes without client collection stay empty (see the coverage).`));
}

function heatmapChart(r) {
  const h = r.compute.heatmap;
  const names = h.rows.map((x) => x.nodes);
  const t0 = ms(h.from), data = [];
  let max = 1;
  h.rows.forEach((row, y) => {
    for (let x = 0; x < h.cols; x++) {
      const v = (row.read[x] || 0) + (row.write[x] || 0);
      if (v > max) max = v;
      if (v) data.push([x, y, v / h.step]);
    }
  });
  const cols = Array.from({ length: h.cols }, (_, i) => when(new Date(t0 + i * h.step * 1000).toISOString()));
  chart('job-heatmap').setOption({
    animation: false, tooltip: { position: 'top', formatter: (p) => `${names[p.value[1]]} ${cols[p.value[0]]}: ${rate(p.value[2])}` },
    grid: { left: 110, right: 20, top: 10, bottom: 80 },
    xAxis: { type: 'category', data: cols, axisLabel: { rotate: 30 } },
    yAxis: { type: 'category', data: names, inverse: true },
    visualMap: { min: 0, max: max / h.step, calculable: true, orient: 'horizontal', left: 'center', bottom: 0,
      formatter: (v) => rate(v) },
    series: [{ type: 'heatmap', data }],
  }, true);
}

// The network part (docs/network.md): the job's switches with the bytes
// of the ports facing its nodes, the histogram of their volumes and the
// imbalance figure, flagged when the switch_imbalance finding is there.
function network(r, end) {
  const n = r.network;
  const f = (r.findings || []).find((x) => x.code === 'switch_imbalance');
  const sws = n.switches || [];
  const from = Math.floor(ms(r.start) / 1000), to = Math.ceil(end / 1000);
  const name = (s) => (isAdmin() ? link('network.html', { from, to, switch: s.switch }, s.switch) : s.switch);
  const sec = card('Network', facts([
    ['switches', num(sws.length)],
    ['imbalance', el('strong', { id: 'job-net-imbalance', className: f ? 'flagged' : null },
      Number(n.imbalance).toFixed(2))],
    ['busiest switch', n.busiest || '-'],
    ['nodes on no cabled port', num(n.unplaced_nodes)]]),
  f ? el('p', { className: 'note error', id: 'job-net-finding' },
    `${f.severity}: ${f.message}`) : '',
  sws.length ? [el('div', { className: 'row' },
    el('div', null, el('h2', null, 'Bytes per switch'), el('div', { className: 'chart', id: 'job-net-bytes' })),
    el('div', null, el('h2', null, 'Volume across the switches'), el('div', { className: 'chart', id: 'job-net-hist' }))),
  table(['switch', 'job ports', 'xmit (to the job)', 'rcv (from the job)', 'uplink xmit', 'uplink rcv', 'downlink xmit', 'downlink rcv'],
    sws.map((s) => [name(s), num(s.job_ports), bytes(s.xmit_bytes), bytes(s.rcv_bytes),
      bytes(s.uplink_xmit_bytes), bytes(s.uplink_rcv_bytes), bytes(s.downlink_xmit_bytes), bytes(s.downlink_rcv_bytes)]))] :
    note('info', 'No switch carried this job.'),
  el('p', { className: 'muted' }, 'Imbalance: the busiest switch\'s volume over the median of the others (docs/network.md).'));
  sec.id = 'job-net';
  if (f) sec.classList.add('flagged-card');
  return sec;
}

function netCharts(n) {
  const sws = n.switches || [];
  chart('job-net-bytes').setOption({
    animation: false, tooltip: { trigger: 'axis', valueFormatter: (v) => bytes(v) },
    legend: { top: 0 }, grid: { left: 80, right: 10, top: 30, bottom: 60 },
    xAxis: { type: 'category', data: sws.map((s) => s.switch), axisLabel: { rotate: sws.length > 8 ? 45 : 0 } },
    yAxis: { type: 'value', axisLabel: { formatter: (v) => bytes(v) } },
    series: [
      { name: 'xmit (to the job)', type: 'bar', stack: 'b', data: sws.map((s) => s.xmit_bytes) },
      { name: 'rcv (from the job)', type: 'bar', stack: 'b', data: sws.map((s) => s.rcv_bytes) }],
  }, true);
  const h = n.histogram || { bin_bytes: 0, counts: [] };
  chart('job-net-hist').setOption({
    animation: false, tooltip: { trigger: 'axis' },
    grid: { left: 50, right: 10, top: 10, bottom: 60 },
    xAxis: { type: 'category', name: 'volume from', nameLocation: 'center', nameGap: 40,
      data: h.counts.map((_, i) => bytes(i * h.bin_bytes)), axisLabel: { rotate: 30 } },
    yAxis: { type: 'value', minInterval: 1 },
    series: [{ name: 'switches', type: 'bar', data: h.counts }],
  }, true);
}

// The likely aggressors: the likely_aggressors finding's evidence
// ({aggressors: [{job, why, via}]}) and the jobs anomalies accuse.
function aggressors(r, anoms) {
  const accused = new Map();
  for (const f of r.findings || [])
    if (f.code === 'likely_aggressors' && f.evidence && Array.isArray(f.evidence.aggressors))
      for (const a of f.evidence.aggressors)
        if (a && a.job !== undefined) accused.set(String(a.job), [a.why, a.via].filter(Boolean).join(' via '));
  for (const a of anoms)
    for (const j of a.accused || [])
      if (String(j) !== String(r.job) && !accused.has(String(j))) accused.set(String(j), a.kind);
  return [...accused.entries()];
}

async function anomaliesOf(r) {
  const to = Math.ceil((r.end ? ms(r.end) : Date.now()) / 1000) + 3600;
  const from = Math.max(Math.floor(ms(r.start) / 1000) - 3600, to - 30 * 86400);
  try {
    return (await api('anomalies', { job: r.job, from, to, limit: 100 })).anomalies || [];
  } catch (e) {
    return [];
  }
}

const LAYER_WORDS = { client: 'compute nodes', forward: 'forwarding nodes', ost: 'OSTs', mds: 'MDTs' };
const SOURCE_WORDS = {
  client: 'the compute nodes\' own records', ost: 'the OSTs\' job_stats', none: 'nowhere: no I/O reached beacon',
};

// The coverage line: per layer, what reported of what the job needed,
// and where the volume comes from (docs/report.md, "Coverage").
function coverage(r) {
  if (!r.coverage) return '';   // a report of an older layout
  const cov = r.coverage;
  const items = Object.keys(LAYER_WORDS).filter((l) => cov[l] && cov[l].known).map((l) => {
    const c = cov[l];
    const txt = `${LAYER_WORDS[l]} ${num(c.reported)}/${num(c.expected)}` +
      (c.served ? ` (${num(c.served)} served the job)` : '');
    return el('li', { className: c.complete ? 'cov-ok' : 'cov-miss', 'data-layer': l }, txt,
      c.missing_hosts ? [' — missing ', el('code', null, c.missing_hosts)] : '',
      c.interrupted ? ` (${num(c.interrupted)} interrupted)` : '');
  });
  const src = SOURCE_WORDS[r.volume_source] || r.volume_source || '?';
  const line = `Volume from ${src}${r.volume_exact ? '' : ' — a lower bound'}.` +
    (r.client_sample ? ` Mode, processes and files: a sample from ${num((r.client || {}).io_nodes)} traced node(s).` : '');
  const whole = items.length && Object.values(cov).every((c) => !c.known || c.complete);
  return el('section', { className: 'card coverage', id: 'job-coverage' },
    el('h2', null, 'Coverage'), el('ul', { className: 'inline' }, items),
    whole ? el('p', { id: 'job-source' }, line) : note(r.volume_exact ? 'info' : 'warn', line));
}

function render(r, anoms) {
  const end = r.end ? ms(r.end) : Date.now();
  const phases = r.phases || [];
  const parts = [];
  const sample = r.client_sample ? ' (sample)' : '';
  parts.push(coverage(r));
  parts.push(card('Job', facts([
    ['job', String(r.job)], ['name', r.name], ['user', r.user], ['state', r.state],
    ['nodes', `${num(r.nnodes)} (${r.nodelist})`], ['tasks', num(r.ntasks)],
    ['start', when(r.start)], ['end', r.end ? when(r.end) : 'running'],
    ['duration', dur((end - ms(r.start)) / 1000)],
    ['I/O mode', [el('strong', { id: 'job-mode' }, r.mode), sample]],
    ['read', `${bytes(r.read_bytes)} (mean ${rate(r.read_bw_mean)}, peak ${rate(r.read_bw_peak)})`],
    ['written', `${bytes(r.write_bytes)} (mean ${rate(r.write_bw_mean)}, peak ${rate(r.write_bw_peak)})`],
    [r.volume_source === 'ost' ? 'OST RPCs/s' : 'IOPS', num(r.iops, 1)],
    ['I/O nodes, processes', `${num(r.io_nodes)}, ${num(r.io_procs)}${sample}`],
    ['files (shared)', `${num(r.files)} (${num(r.shared_files)})${sample}`],
    ['report', `${when(r.computed)}${r.cached ? ' (cached)' : ''}`],
  ]), r.partial ? note('info', 'Partial: ' + (r.partial_reason || 'a bound was hit')) : ''));
  parts.push(card('Bandwidth of the compute, forwarding and OST layers',
    el('div', { className: 'chart tall', id: 'job-bw' }), el('div', { id: 'job-bw-note' }),
    el('p', { className: 'muted' }, 'Compute: this job. Forwarding and OST (dashed): the whole load of the components the job used. Shaded: the I/O phases (wavelet).')));
  parts.push(card('I/O phases', (r.io_phases || []).length ?
    table(['#', 'start', 'end', 'duration', 'volume', 'mean', 'peak'], r.io_phases.map((p, i) => [
      String(i + 1), when(p.start), when(p.end), dur(p.duration), bytes(p.volume), rate(p.mean_bw), rate(p.peak_bw)])) :
    note('info', 'No I/O phase found.'),
  phases.length ? [el('h2', null, 'Busy periods'), table(['start', 'end', 'read', 'written', 'metadata ops', 'mode'],
    phases.map((p) => [when(p.start), when(p.end), bytes(p.read_bytes), bytes(p.write_bytes), num(p.meta_ops), p.mode || r.mode]))] : ''));
  parts.push(el('div', { className: 'row' },
    card('Request sizes', el('div', { className: 'chart', id: 'job-sizes' })),
    card('Operations', el('div', { className: 'chart', id: 'job-ops' }))));
  parts.push(card('Metadata', facts([
    ['operations (MDTs)', num(r.meta_ops)], ['operations (clients)', num(r.client_meta_ops)],
    ['rate in I/O phases', num(r.meta_rate_io, 1) + ' /s']]),
  (r.mdts || []).length ? table(['MDT', 'job ops', 'MDT ops', 'share'], r.mdts.map((m) => [
    link('component.html', { layer: 'mds', entity: m.target }, m.target), num(m.ops), num(m.total_ops), pct(m.share)])) : ''));
  const fwd = r.forwarding || [], osts = r.osts || [];
  parts.push(card('Forwarding nodes', fwd.length ? [
    el('div', { className: 'chart', id: 'job-fwd' }),
    table(['node', 'read', 'written', 'ops', 'compute nodes', 'share', 'latency mean', 'latency p95', 'queue'],
      fwd.map((f) => [link('component.html', { layer: 'forward', entity: f.node, from: Math.floor(ms(r.start) / 1000), to: Math.ceil(end / 1000) }, f.node),
        bytes(f.read_bytes), bytes(f.write_bytes), num(f.ops), num(f.nodes), pct(f.share),
        num(f.latency_mean_us, 1) + ' µs', num(f.latency_p95_us, 1) + ' µs', num(f.queue_mean, 2)]))] :
    note('info', 'No forwarding node reported this job.')));
  parts.push(card('OSTs', osts.length ? [
    el('div', { className: 'chart', id: 'job-ost' }),
    table(['OST', 'read', 'written', 'ops', 'share of the OST'],
      osts.map((o) => [link('component.html', { layer: 'ost', entity: o.target, from: Math.floor(ms(r.start) / 1000), to: Math.ceil(end / 1000) }, o.target),
        bytes(o.read_bytes), bytes(o.write_bytes), num(o.ops), pct(o.share)]))] :
    note('info', 'No OST reported this job.')));
  if (r.network) parts.push(network(r, end));
  const acc = aggressors(r, anoms);
  parts.push(card('Anomalies', anoms.length ?
    table(['id', 'kind', 'component', 'window', 'severity', 'state'], anoms.map((a) => [
      link('anomalies.html', { id: a.id, from: Math.floor(ms(a.from) / 1000), to: Math.ceil(ms(a.to) / 1000) + 1 }, String(a.id)),
      a.kind, a.component, `${when(a.from)} - ${when(a.to)}`,
      el('span', { className: 'sev-' + a.severity }, a.severity), a.state])) :
    note('info', 'No anomaly names this job.'),
  acc.length ? el('p', { id: 'job-aggressors' }, 'Likely aggressors: ', acc.map(([j, why], i) =>
    [i ? ', ' : '', link('job.html', { id: j }, j), why ? ` (${why})` : ''])) : ''));
  parts.push(filesCard(r), timeCard(r), heatmapCard(r));
  parts.push(card('Findings', findings(r)));
  put('job', parts);
  put('job-title', `Job ${r.job}: ${r.name}`);
  document.title = `Job ${r.job} - beacon`;
  sizesChart(r, 'job-sizes');
  opsChart(r, 'job-ops');
  if (fwd.length) loadChart(fwd, 'node', 'job-fwd');
  if (osts.length) loadChart(osts, 'target', 'job-ost');
  if (r.network && (r.network.switches || []).length) netCharts(r.network);
  if (r.compute && r.compute.heatmap && (r.compute.heatmap.rows || []).length) heatmapChart(r);
}

page('', async () => {
  const id = param('id');
  const form = document.getElementById('job-form');
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const v = document.getElementById('job-id').value.trim();
    if (/^\d+$/.test(v)) location.assign('job.html?id=' + v);
  });
  if (!id) { put('job', note('info', 'Give a job id, or find one on the Jobs page.')); return; }
  document.getElementById('job-id').value = id;
  if (!/^\d+$/.test(id)) { put('job', note('error', 'A job id is a number.')); return; }
  put('job', note('info', 'Loading the report...'));
  let r;
  try {
    r = await api('jobs/' + id);
  } catch (e) {
    showError('job', e);
    return;
  }
  const anoms = await anomaliesOf(r);
  render(r, anoms);
  const notes = await bandwidth(r, 'job-bw');
  put('job-bw-note', notes.map((n) => note('info', n)));
  document.getElementById('job').dataset.ready = '1';
});
