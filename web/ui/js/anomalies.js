// Anomalies (GET /api/v1/anomalies): a list filtered by kind and state;
// with ?id= one anomaly's detail: its evidence, the jobs it names, a chart
// of its component's series around its window, and for administrators
// the acknowledgement (POST /api/v1/anomalies/ID/ack with the CSRF token).
import {
  api, page, put, el, link, table, note, chart, showError, rate, num, param,
  ms, when, dur, isAdmin, inputToEpoch, epochToInput, seriesRate, zeroGaps, anomalyLayer,
} from './common.js';

function detailLink(a) {
  return link('anomalies.html', { id: a.id, from: Math.floor(ms(a.from) / 1000),
                                  to: Math.ceil(ms(a.to) / 1000) + 1 }, String(a.id));
}

function componentCell(a) {
  const layer = anomalyLayer(a);
  if (layer === 'job') return link('job.html', { id: a.component }, a.component);
  return link('component.html', { layer, entity: a.component, from: Math.floor(ms(a.from) / 1000),
                                  to: Math.ceil(ms(a.to) / 1000) }, a.component);
}

function jobsCell(a) {
  const acc = new Set((a.accused || []).map(String));
  return (a.jobs || []).map((j, i) => [i ? ', ' : '', link('job.html', { id: j }, String(j)),
    acc.has(String(j)) ? ' (accused)' : '']);
}

function list(q) {
  return api('anomalies', q).then((js) => js.anomalies || []);
}

async function showList(q) {
  try {
    const all = await list(q);
    if (!all.length) { put('an', note('info', 'No anomaly matches.')); return; }
    put('an', table(['id', 'kind', 'component', 'from', 'to', 'severity', 'score', 'state', 'jobs'],
      all.map((a) => [detailLink(a), a.kind, componentCell(a), when(a.from), when(a.to),
        el('span', { className: 'sev-' + a.severity }, a.severity), num(a.score, 2),
        el('span', { className: 'state' }, a.state), jobsCell(a)])));
  } catch (e) {
    showError('an', e);
  }
}

function evidenceTable(ev) {
  const rows = Object.entries(ev || {}).map(([k, v]) => [k,
    typeof v === 'number' ? num(v, 3) : typeof v === 'object' ? JSON.stringify(v) : String(v)]);
  return rows.length ? table(['evidence', 'value'], rows) : note('info', 'No evidence recorded.');
}

async function seriesChart(a, where) {
  const layer = anomalyLayer(a);
  if (layer === 'job') {
    put(where, note('info', 'The component is a job: its report shows its series. '), link('job.html', { id: a.component }, 'Job ' + a.component));
    return;
  }
  const f = Math.floor(ms(a.from) / 1000), t = Math.ceil(ms(a.to) / 1000);
  const pad = Math.max(600, t - f);
  const to = Math.min(t + pad, Math.floor(Date.now() / 1000));
  const from = f - pad;
  try {
    const js = await api('series', { layer, entity: a.component, from, to,
                                     step: Math.max(1, Math.ceil((to - from) / 1500)) });
    put(where, el('div', { className: 'chart tall', id: 'an-chart' }));
    const meta = layer === 'mds' || a.kind === 'md_storm';
    const ops = (p) => ((p.meta_ops || 0)) / (js.step || 1);
    const lines = meta ?
      [['metadata ops/s', zeroGaps((js.points || []).map((p) => [ms(p.t), ops(p)]), (js.step || 1) * 1000)]] :
      [['read', seriesRate(js, 'read_bytes')], ['write', seriesRate(js, 'write_bytes')]];
    const fmt = meta ? (v) => num(v, 1) : rate;
    chart('an-chart').setOption({
      animation: false, tooltip: { trigger: 'axis', valueFormatter: fmt }, legend: { top: 0 },
      grid: { left: 80, right: 20, top: 35, bottom: 70 },
      xAxis: { type: 'time' }, yAxis: { type: 'value', axisLabel: { formatter: fmt } },
      dataZoom: [{ type: 'inside' }, { type: 'slider', bottom: 10 }],
      series: lines.map(([name, data], i) => ({ name, type: 'line', showSymbol: false, data,
        markArea: i ? undefined : { silent: true, itemStyle: { color: 'rgba(180,35,24,0.10)' },
          data: [[{ name: 'anomaly', xAxis: ms(a.from) }, { xAxis: ms(a.to) }]] } })),
    }, true);
  } catch (e) {
    showError(where, e);
  }
}

function ackButton(a) {
  if (!isAdmin() || a.state !== 'open') return '';
  const b = el('button', { type: 'button', className: 'primary', id: 'an-ack' }, 'Acknowledge');
  b.addEventListener('click', async () => {
    b.disabled = true;
    try {
      const r = await api(`anomalies/${a.id}/ack`, null, { method: 'POST' });
      put('an-detail-state', r.state);
      put('an-detail-acked', r.acked_by || '');
      b.remove();
      put('an-ack-note', note('info', 'Acknowledged.'));
    } catch (e) {
      b.disabled = false;
      showError('an-ack-note', e);
    }
  });
  return b;
}

async function showOne(id, q) {
  let a;
  try {
    a = (await list({ from: q.from, to: q.to, limit: 1000 })).find((x) => String(x.id) === id);
  } catch (e) {
    showError('an', e);
    return;
  }
  if (!a) { put('an', note('error', `No anomaly ${id} in this period (or not one of yours).`)); return; }
  put('an',
    el('section', { className: 'card' }, el('h2', null, `Anomaly ${a.id}: ${a.kind} on ${a.component}`),
      el('dl', { className: 'facts' },
        el('dt', null, 'component'), el('dd', null, componentCell(a)),
        el('dt', null, 'window'), el('dd', null, `${when(a.from)} - ${when(a.to)} (${dur((ms(a.to) - ms(a.from)) / 1000)})`),
        el('dt', null, 'severity'), el('dd', null, el('span', { className: 'sev-' + a.severity }, a.severity)),
        el('dt', null, 'score'), el('dd', null, num(a.score, 3)),
        el('dt', null, 'state'), el('dd', { id: 'an-detail-state' }, a.state),
        el('dt', null, 'acknowledged by'), el('dd', { id: 'an-detail-acked' }, a.acked_by || ''),
        el('dt', null, 'detected, updated'), el('dd', null, `${when(a.detected)}, ${when(a.updated)}`),
        el('dt', null, 'jobs'), el('dd', null, jobsCell(a))),
      el('p', null, ackButton(a)), el('div', { id: 'an-ack-note' })),
    el('section', { className: 'card' }, el('h2', null, 'Evidence'), evidenceTable(a.evidence)),
    el('section', { className: 'card' }, el('h2', null, 'The component around the window'), el('div', { id: 'an-series' })));
  await seriesChart(a, 'an-series');
}

page('anomalies.html', async () => {
  const q = {};
  for (const f of ['kind', 'state', 'from', 'to']) if (param(f)) q[f] = param(f);
  for (const f of ['kind', 'state']) if (q[f]) document.getElementById('an-' + f).value = q[f];
  for (const f of ['from', 'to'])
    if (/^\d+$/.test(q[f] || '')) document.getElementById('an-' + f).value = epochToInput(Number(q[f]));
  document.getElementById('an-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const qs = new URLSearchParams();
    for (const f of ['kind', 'state']) { const v = document.getElementById('an-' + f).value; if (v) qs.append(f, v); }
    for (const f of ['from', 'to']) { const v = inputToEpoch(document.getElementById('an-' + f).value); if (v !== '') qs.append(f, v); }
    location.assign('anomalies.html?' + qs);
  });
  const id = param('id');
  if (id && /^\d+$/.test(id)) await showOne(id, q);
  else await showList(q);
});
