// The administrators' overview: every forwarding node, OST and MDT's
// bandwidth, IOPS and metadata rate now (GET /api/v1/overview, again
// every few seconds), the forwarding nodes' latency and queue length, the
// MDTs' metadata load by client group (administrators only), the heatmap of peak load per hour
// (GET /api/v1/heatmap) and the open anomalies.
import {
  api, page, put, el, link, table, note, chart, showError, rate, num, when,
  ms, esc, param, inputToEpoch, epochToInput, anomalyLayer,
} from './common.js';

const LAYERS = [['forward', 'forwarding node'], ['ost', 'OST'], ['mds', 'MDT']];
let timer = null;

function barChart(id, rows, layer) {
  const names = rows.map((r) => r.entity);
  const meta = layer === 'mds';
  const series = meta ?
    [{ name: 'metadata ops/s', type: 'bar', data: rows.map((r) => r.meta_ops_rate) }] :
    [{ name: 'read', type: 'bar', stack: 'bw', data: rows.map((r) => r.read_bw) },
     { name: 'write', type: 'bar', stack: 'bw', data: rows.map((r) => r.write_bw) }];
  chart(id).setOption({
    animation: false,
    tooltip: { trigger: 'axis', valueFormatter: (v) => (meta ? num(v, 1) : rate(v)) },
    legend: { top: 0 },
    grid: { left: 70, right: 10, top: 30, bottom: 60 },
    xAxis: { type: 'category', data: names, axisLabel: { rotate: names.length > 8 ? 45 : 0 } },
    yAxis: { type: 'value', axisLabel: { formatter: (v) => (meta ? num(v, 2) : rate(v)) } },
    series,
  }, true);
}

const opt = (v, d) => (v === null || v === undefined ? '-' : num(v, d));

function layerTable(rows, layer, to) {
  const from = to ? to - 3600 : '';
  const fwd = layer === 'forward';
  const head = ['component', 'read', 'write', 'IOPS', 'metadata ops/s'];
  if (fwd) head.push('latency mean (us)', 'latency max (us)', 'queue mean', 'queue max');
  return table(head,
    rows.map((r) => [
      link('component.html', { layer, entity: r.entity, from, to }, r.entity),
      rate(r.read_bw), rate(r.write_bw), num(r.iops, 1), num(r.meta_ops_rate, 1),
      ...(fwd ? [opt(r.latency_mean_us, 1), opt(r.latency_max_us, 0),
        opt(r.queue_mean, 2), opt(r.queue_max, 0)] : []),
    ]));
}

// The forwarding nodes' mean latency (bars, left axis) and mean and
// largest queue length (right axis).
export function fwdQueueChart(id, rows) {
  const names = rows.map((r) => r.entity);
  chart(id).setOption({
    animation: false,
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: { left: 70, right: 60, top: 30, bottom: 60 },
    xAxis: { type: 'category', data: names, axisLabel: { rotate: names.length > 8 ? 45 : 0 } },
    yAxis: [{ type: 'value', name: 'us' }, { type: 'value', name: 'queue' }],
    series: [
      { name: 'latency mean (us)', type: 'bar', data: rows.map((r) => r.latency_mean_us) },
      { name: 'queue mean', type: 'line', yAxisIndex: 1, data: rows.map((r) => r.queue_mean) },
      { name: 'queue max', type: 'line', yAxisIndex: 1, data: rows.map((r) => r.queue_max) },
    ],
  }, true);
}

// The MDTs' metadata operations/s by client group, stacked per MDT (the
// groups beyond the named ones as "others").
export function groupChart(id, rows) {
  const names = rows.map((r) => r.entity);
  const groups = [...new Set(rows.flatMap((r) => (r.groups || []).map((g) => g.group)))].sort();
  const rate1 = (r, g) => ((r.groups || []).find((x) => x.group === g) || { meta_ops_rate: 0 }).meta_ops_rate;
  const series = groups.map((g) => ({ name: g, type: 'bar', stack: 'g', data: rows.map((r) => rate1(r, g)) }));
  if (rows.some((r) => r.groups_others > 0)) {
    series.push({ name: 'others', type: 'bar', stack: 'g', data: rows.map((r) => r.groups_others || 0) });
  }
  chart(id).setOption({
    animation: false,
    tooltip: { trigger: 'axis', valueFormatter: (v) => num(v, 1) },
    legend: { top: 0, type: 'scroll' },
    grid: { left: 70, right: 10, top: 30, bottom: 60 },
    xAxis: { type: 'category', data: names },
    yAxis: { type: 'value', name: 'ops/s' },
    series,
  }, true);
}

function groupSection(ov) {
  const rows = (ov.mds || []).filter((r) => Array.isArray(r.groups))
    .sort((a, b) => a.entity.localeCompare(b.entity));
  if (!rows.some((r) => r.groups.length || r.groups_others > 0)) {
    put('ov-mdsgroup', note('info', ov.groups_by ? 'No per-client metadata records in this window.' :
      'Per-client metadata load is shown to administrators.'));
    chart('ov-mdsgroup-chart').clear();
    return;
  }
  put('ov-mdsgroup', table(['MDT', ov.groups_by === 'fwd' ? 'group (forwarding node, else NID)' : 'client NID', 'metadata ops/s'],
    rows.flatMap((r) => r.groups.map((g) => [r.entity, g.group, num(g.meta_ops_rate, 2)]))));
  groupChart('ov-mdsgroup-chart', rows);
}

async function refresh() {
  const to = inputToEpoch(document.getElementById('ov-to').value);
  const win = document.getElementById('ov-window').value;
  try {
    const ov = await api('overview', { to, window: win });
    for (const [layer, what] of LAYERS) {
      const rows = (ov[layer] || []).slice().sort((a, b) => a.entity.localeCompare(b.entity));
      const where = document.getElementById('ov-' + layer);
      if (!rows.length) {
        put(where, note('info', `No ${what} reported in this window.`));
        chart('ov-' + layer + '-chart').clear();
        continue;
      }
      put(where, layerTable(rows, layer, to));
      barChart('ov-' + layer + '-chart', rows, layer);
      if (layer === 'forward') fwdQueueChart('ov-fwdq-chart', rows);
    }
    if (!(ov.forward || []).length) chart('ov-fwdq-chart').clear();
    groupSection(ov);
    put('ov-stamp', `${win} to ${when(ov.to)}`);
    put('ov-error');
  } catch (e) {
    showError('ov-error', e);
  }
}

// The level of a peak against the component's highest hour (the paper's
// four levels): 3 high (>90%), 2 mid (50-90%), 1 low (10-50%), 0 idle.
export function level(v, peak) {
  if (!peak || !(v > 0)) return 0;
  const f = v / peak;
  return f > 0.9 ? 3 : f >= 0.5 ? 2 : f >= 0.1 ? 1 : 0;
}

async function heatmap() {
  const layer = document.getElementById('hm-layer').value;
  const hours = Number(document.getElementById('hm-hours').value);
  const toIn = inputToEpoch(document.getElementById('ov-to').value);
  const to = toIn || Math.floor(Date.now() / 1000);
  try {
    const hm = await api('heatmap', { layer, from: to - hours * 3600, to });
    const comps = (hm.components || []).slice().sort((a, b) => a.entity.localeCompare(b.entity));
    const start = ms(hm.from);
    const xs = [];
    for (let h = 0; h < hm.hours; h++) xs.push(start + h * 3600000);
    const data = [];
    comps.forEach((c, y) => {
      const top = Math.max(0, ...c.peak);
      c.peak.forEach((v, x) => data.push([x, y, level(v, top), v]));
    });
    const unit = hm.unit || 'bytes/s';
    const show = (v) => (layer === 'mds' ? num(v, 1) + ' ops/s' : rate(v));
    chart('heatmap').setOption({
      animation: false,
      tooltip: {
        formatter: (p) => esc(comps[p.value[1]].entity) + '<br>' +
          esc(when(xs[p.value[0]])) + '<br>peak ' + esc(show(p.value[3])),
      },
      grid: { left: 110, right: 20, top: 10, bottom: 90 },
      xAxis: { type: 'category', data: xs.map((t) => when(t).slice(5, 16)), splitArea: { show: true } },
      yAxis: { type: 'category', data: comps.map((c) => c.entity), splitArea: { show: true } },
      visualMap: {
        type: 'piecewise', dimension: 2, orient: 'horizontal', left: 'center', bottom: 0,
        pieces: [{ value: 0, label: 'idle', color: '#eef1f5' },
                 { value: 1, label: 'low 10-50%', color: '#9ecae1' },
                 { value: 2, label: 'mid 50-90%', color: '#f6b26b' },
                 { value: 3, label: 'high >90%', color: '#cc0000' }],
      },
      series: [{ name: 'peak', type: 'heatmap', data, emphasis: { itemStyle: { borderColor: '#000' } } }],
    }, true);
    put('hm-note', hm.truncated ? note('info', 'Only the first components are shown.') : '',
      el('span', { className: 'muted' }, `${comps.length} components, ${hm.hours} hours (${unit})`));
  } catch (e) {
    showError('hm-note', e);
  }
}

async function anomalies() {
  const where = document.getElementById('ov-anomalies');
  try {
    const js = await api('anomalies', { state: 'open', limit: 100 });
    const list = js.anomalies || [];
    if (!list.length) { put(where, note('info', 'No open anomaly in the last 7 days.')); return; }
    put(where, table(['id', 'kind', 'component', 'from', 'to', 'severity'],
      list.map((a) => [
        link('anomalies.html', { id: a.id, from: Math.floor(ms(a.from) / 1000), to: Math.ceil(ms(a.to) / 1000) + 1 }, String(a.id)),
        a.kind, anomalyLayer(a) === 'job' ? link('job.html', { id: a.component }, a.component) : a.component,
        when(a.from), when(a.to), el('span', { className: 'sev-' + a.severity }, a.severity),
      ])));
  } catch (e) {
    showError(where, e);
  }
}

function schedule() {
  clearInterval(timer);
  const every = Number(document.getElementById('ov-refresh').value);
  if (every > 0) timer = setInterval(refresh, every * 1000);
}

page('index.html', async () => {
  const to = param('to'), win = param('window');
  if (to && /^\d+$/.test(to)) document.getElementById('ov-to').value = epochToInput(Number(to));
  if (win) {
    const sel = document.getElementById('ov-window');
    if (![...sel.options].some((o) => o.value === win)) sel.append(el('option', null, win));
    sel.value = win;
  }
  document.getElementById('ov-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    refresh(); heatmap(); schedule();
  });
  document.getElementById('ov-refresh').addEventListener('change', schedule);
  for (const id of ['hm-layer', 'hm-hours'])
    document.getElementById(id).addEventListener('change', heatmap);
  await Promise.all([refresh(), heatmap(), anomalies()]);
  schedule();
});
