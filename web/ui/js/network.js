// The fabric's switches over a window (GET /api/v1/network/switches,
// administrators only: docs/api.md, docs/network.md): per switch its
// uplink (switch-to-switch ports) and downlink (host ports) bytes and
// rates and its busiest port; a chosen switch's traffic over time (GET
// /api/v1/network/switches/S/series) per port or per uplink/downlink,
// stacked or as lines, with zoom. A plain user gets the API's 403, shown
// as such.
import {
  api, page, put, el, link, table, note, chart, showError, ApiError, bytes,
  rate, when, param, ms, inputToEpoch, epochToInput,
} from './common.js';

const BUSIEST_MAX = 32;   // switches whose ports are fetched for the busiest

// A byte count shown for people, its exact figure in data-value.
function byteCell(n) { return el('span', { 'data-value': String(n) }, bytes(n)); }

function rateCell(n, secs) { return el('span', { 'data-value': String(n / secs) }, rate(n / secs)); }

function windowOf() {
  const now = Math.floor(Date.now() / 1000);
  const to = /^\d+$/.test(param('to') || '') ? Number(param('to')) : now;
  const from = /^\d+$/.test(param('from') || '') ? Number(param('from')) : to - 3600;
  const step = /^\d+$/.test(param('step') || '') ? Number(param('step')) : 60;
  return { from, to, step };
}

// The busiest port of a switch's series answer: "port N (far end) bytes".
function busiest(js) {
  let best = null;
  for (const p of js.ports || [])
    if (!best || p.xmit_bytes + p.rcv_bytes > best.xmit_bytes + best.rcv_bytes) best = p;
  if (!best) return '-';
  return el('span', { 'data-port': String(best.port) },
    `port ${best.port}${best.remote ? ' (' + best.remote + ')' : ''}: ${bytes(best.xmit_bytes + best.rcv_bytes)}`);
}

function switchTable(v, w, chosen) {
  const secs = Math.max(1, w.to - w.from);
  const rows = (v.switches || []).slice().sort((a, b) => a.switch.localeCompare(b.switch));
  const t = table(['switch', 'GUID', 'uplink xmit', 'uplink rcv', 'uplink rate', 'downlink xmit',
    'downlink rcv', 'downlink rate', 'total xmit', 'total rcv', 'busiest port'],
  rows.map((s) => [
    link('network.html', { from: w.from, to: w.to, step: w.step, switch: s.switch }, s.switch),
    s.guid || '-', byteCell(s.uplink_xmit_bytes), byteCell(s.uplink_rcv_bytes),
    rateCell(s.uplink_xmit_bytes + s.uplink_rcv_bytes, secs),
    byteCell(s.downlink_xmit_bytes), byteCell(s.downlink_rcv_bytes),
    rateCell(s.downlink_xmit_bytes + s.downlink_rcv_bytes, secs),
    byteCell(s.xmit_bytes), byteCell(s.rcv_bytes), el('span', { className: 'busiest muted' }, '...')]));
  t.id = 'net-switches';
  t.querySelectorAll('tbody tr').forEach((tr, i) => {
    tr.dataset.switch = rows[i].switch;
    if (rows[i].switch === chosen || rows[i].guid === chosen) tr.className = 'chosen';
  });
  return { t, rows };
}

async function fillBusiest(t, rows, w) {
  const trs = [...t.querySelectorAll('tbody tr')];
  await Promise.all(rows.map(async (s, i) => {
    const cell = trs[i].querySelector('.busiest');
    if (i >= BUSIEST_MAX) { put(cell, '-'); return; }
    try {
      put(cell, busiest(await api(`network/switches/${encodeURIComponent(s.switch)}/series`, w)));
    } catch (e) {
      put(cell, e instanceof ApiError ? `(${e.status})` : '-');
    }
  }));
}

// The lines of the chart: [name, [[t ms, bytes/s]...]] per port and
// direction, or per uplink/downlink (ports summed by kind) and direction.
function lines(js, mode) {
  const t0 = ms(js.from), step = js.step_s || 60;
  const at = (i) => t0 + i * step * 1000;
  const ports = (js.ports || []).slice().sort((a, b) => a.port - b.port);
  if (mode === 'ports') {
    return ports.flatMap((p) => [
      [`port ${p.port} xmit`, p.series.map(([x], i) => [at(i), x / step])],
      [`port ${p.port} rcv`, p.series.map(([, r], i) => [at(i), r / step])]]);
  }
  const groups = [['uplink', 'switch'], ['downlink', 'host']];
  const out = [];
  for (const [label, kind] of groups) {
    const mine = ports.filter((p) => p.kind === kind);
    if (!mine.length) continue;
    for (const [d, k] of [['xmit', 0], ['rcv', 1]])
      out.push([`${label} ${d}`, (mine[0].series || []).map((_, i) =>
        [at(i), mine.reduce((s, p) => s + (p.series[i] ? p.series[i][k] : 0), 0) / step])]);
  }
  return out;
}

function draw(js, mode, stacked) {
  chart('net-chart').setOption({
    animation: false,
    tooltip: { trigger: 'axis', valueFormatter: (v) => rate(v) },
    legend: { top: 0, type: 'scroll' },
    grid: { left: 80, right: 20, top: 35, bottom: 70 },
    xAxis: { type: 'time' },
    yAxis: { type: 'value', axisLabel: { formatter: (v) => rate(v) } },
    dataZoom: [{ type: 'inside' }, { type: 'slider', bottom: 10 }],
    series: lines(js, mode).map(([name, data]) => ({
      name, type: 'line', showSymbol: false, step: 'end', data,
      stack: stacked ? 'all' : undefined, areaStyle: stacked ? {} : undefined })),
  }, true);
}

async function showSwitch(sw, w) {
  let js;
  try {
    js = await api(`network/switches/${encodeURIComponent(sw)}/series`, w);
  } catch (e) {
    showError('net-detail', e);
    return;
  }
  const mode = el('select', { id: 'net-mode' },
    el('option', { value: 'ports' }, 'per port'), el('option', { value: 'updown' }, 'uplink / downlink'));
  const stack = el('input', { type: 'checkbox', id: 'net-stacked' });
  const redraw = () => draw(js, mode.value, stack.checked);
  mode.addEventListener('change', redraw);
  stack.addEventListener('change', redraw);
  const ports = (js.ports || []).slice().sort((a, b) => a.port - b.port);
  put('net-detail', el('h2', { id: 'net-switch' }, `${js.switch} over time`),
    el('form', { className: 'filters' }, el('label', null, 'lines', mode),
      el('label', null, 'stacked', stack)),
    el('div', { className: 'chart tall', id: 'net-chart' }),
    table(['port', 'kind', 'far end', 'rate', 'xmit', 'rcv'], ports.map((p) => [
      String(p.port), p.kind || '-', p.remote || '-', p.rate ? rate(p.rate) : '-',
      byteCell(p.xmit_bytes), byteCell(p.rcv_bytes)])));
  redraw();
}

page('network.html', async () => {
  const w = windowOf();
  const sw = param('switch') || '';
  document.getElementById('net-from').value = epochToInput(w.from);
  document.getElementById('net-to').value = epochToInput(w.to);
  document.getElementById('net-step').value = String(w.step);
  document.getElementById('net-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const qs = new URLSearchParams({
      from: inputToEpoch(document.getElementById('net-from').value),
      to: inputToEpoch(document.getElementById('net-to').value),
      step: document.getElementById('net-step').value.trim() || '60',
    });
    if (sw) qs.set('switch', sw);
    location.assign('network.html?' + qs);
  });
  put('net', note('info', 'Loading the switches...'));
  let v;
  try {
    v = await api('network/switches', w);
  } catch (e) {
    if (e instanceof ApiError && e.status === 403)
      put('net', el('p', { className: 'note error', role: 'alert', id: 'net-refused' },
        'The network views are for administrators only (the API refused: 403, ' + e.message +
        '). The network of your jobs is in their reports.'));
    else showError('net', e);
    return;
  }
  const { t, rows } = switchTable(v, w, sw);
  put('net', el('section', { className: 'card' },
    el('h2', null, `Switches, ${when(v.from)} - ${when(v.to)}`),
    rows.length ? t : note('info', 'No switch reported in the window.'),
    v.dropped ? note('info', `${v.dropped} records left out (bounds)`) : '',
    el('p', { className: 'muted' }, 'Uplinks: ports cabled to another switch; downlinks: ports cabled to hosts (by the topology records). Rates are the window\'s means.')),
  el('section', { className: 'card', id: 'net-detail' },
    sw ? note('info', 'Loading the switch...') : note('info', 'Choose a switch to see its traffic over time.')));
  await Promise.all([fillBusiest(t, rows, w), sw ? showSwitch(sw, w) : null]);
  if (sw) put('net-title', `Network: ${sw}`);
  document.getElementById('net').dataset.ready = '1';
});
