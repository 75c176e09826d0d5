// One forwarding node, OST or MDT (or switch port, compute node) over a
// period (GET /api/v1/series), beside peers of its layer chosen from the
// overview's component list (GET /api/v1/overview at the period's end).
import {
  api, page, put, el, link, table, note, chart, showError, rate, num, param,
  inputToEpoch, epochToInput, seriesRate, zeroGaps, when,
} from './common.js';

const PEERS_DEFAULT = 4;

function stepFor(from, to) { return Math.max(1, Math.ceil((to - from) / 1500)); }

function plot(where, answers, key, fmt) {
  chart(where).setOption({
    animation: false,
    tooltip: { trigger: 'axis', valueFormatter: fmt },
    legend: { top: 0, type: 'scroll' },
    grid: { left: 80, right: 20, top: 35, bottom: 70 },
    xAxis: { type: 'time' },
    yAxis: { type: 'value', axisLabel: { formatter: fmt } },
    dataZoom: [{ type: 'inside' }, { type: 'slider', bottom: 10 }],
    // the component itself drawn thicker than its peers
    series: answers.flatMap(({ name, js }, i) => key(js).map(([label, data]) => ({
      name: name + ' ' + label, type: 'line', showSymbol: false, data,
      lineStyle: { width: i ? 1.2 : 3 } }))),
  }, true);
}

function opsKey(js) {
  const step = js.step || 1;
  return [['ops/s', zeroGaps((js.points || []).map((p) => [Date.parse(p.t),
    ((p.read_ops || 0) + (p.write_ops || 0) + (p.meta_ops || 0) + (p.other_ops || 0)) / step]), step * 1000)]];
}

// A forwarding node's latency and queue length per bucket (buckets
// without samples left out).
function statKey(mean, max) {
  return (js) => [['mean', (js.points || []).filter((p) => p[mean] !== undefined)
    .map((p) => [Date.parse(p.t), p[mean]])],
  ['max', (js.points || []).filter((p) => p[max] !== undefined).map((p) => [Date.parse(p.t), p[max]])]];
}

async function show(layer, entity, from, to, peers) {
  const step = stepFor(from, to);
  const names = [entity, ...peers];
  const got = await Promise.allSettled(names.map((e) => api('series', { layer, entity: e, from, to, step })));
  const answers = [], refused = [];
  got.forEach((g, i) => (g.status === 'fulfilled' ? answers.push({ name: names[i], js: g.value }) :
    refused.push([names[i], g.reason])));
  if (!answers.length || answers[0].name !== entity) {
    const e = refused.find(([n]) => n === entity);
    showError('comp-charts', e ? e[1] : new Error('no answer'));
    return;
  }
  put('comp-charts',
    el('h2', null, 'Bandwidth'), el('div', { className: 'chart tall', id: 'comp-bw' }),
    el('h2', null, 'Operations'), el('div', { className: 'chart', id: 'comp-ops' }),
    layer === 'forward' ? [
      el('h2', null, 'Request latency (us)'), el('div', { className: 'chart', id: 'comp-lat' }),
      el('h2', null, 'Queue length'), el('div', { className: 'chart', id: 'comp-queue' })] : [],
    refused.map(([n, e]) => note('info', `${n}: refused (${e.status}) ${e.message}`)));
  plot('comp-bw', answers, (js) => [['read', seriesRate(js, 'read_bytes')], ['write', seriesRate(js, 'write_bytes')]], rate);
  plot('comp-ops', answers, opsKey, (v) => num(v, 1));
  if (layer === 'forward') {
    plot('comp-lat', answers, statKey('latency_mean_us', 'latency_max_us'), (v) => num(v, 0));
    plot('comp-queue', answers, statKey('queue_mean', 'queue_max'), (v) => num(v, 1));
  }
  const pts = answers[0].js.points || [];
  put('comp-sum', pts.length ? note('info',
    `${pts.length} non-empty buckets of ${step} s; busiest read ${rate(Math.max(...seriesRate(answers[0].js, 'read_bytes').map((p) => p[1])))}, ` +
    `write ${rate(Math.max(...seriesRate(answers[0].js, 'write_bytes').map((p) => p[1])))}`) :
    note('info', 'No records of this component in the period.'));
}

page('component.html', async () => {
  const layer = param('layer') || 'forward';
  const entity = param('entity') || '';
  const now = Math.floor(Date.now() / 1000);
  const to = /^\d+$/.test(param('to') || '') ? Number(param('to')) : now;
  const from = /^\d+$/.test(param('from') || '') ? Number(param('from')) : to - 3600;
  document.getElementById('comp-layer').value = layer;
  document.getElementById('comp-entity').value = entity;
  document.getElementById('comp-from').value = epochToInput(from);
  document.getElementById('comp-to').value = epochToInput(to);
  document.getElementById('comp-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const qs = new URLSearchParams({
      layer: document.getElementById('comp-layer').value,
      entity: document.getElementById('comp-entity').value.trim(),
      from: inputToEpoch(document.getElementById('comp-from').value),
      to: inputToEpoch(document.getElementById('comp-to').value),
    });
    location.assign('component.html?' + qs);
  });
  const comp = document.getElementById('comp');
  put(comp, el('div', { id: 'comp-sum' }), el('section', { className: 'card', id: 'comp-charts' }),
    el('section', { className: 'card' }, el('h2', null, 'Peers'), el('div', { id: 'comp-peers' })));
  // peers: the overview's components of the layer over the period's end
  let peers = [];
  if (['forward', 'ost', 'mds'].includes(layer)) {
    try {
      const ov = await api('overview', { to, window: Math.max(1, Math.min(3600, to - from)) + 's' });
      const rows = (ov[layer] || []).slice().sort((a, b) => a.entity.localeCompare(b.entity));
      peers = rows.map((r) => r.entity).filter((e) => e !== entity);
      put('comp-peers', rows.length ? table(['component', 'read', 'write', 'IOPS', 'metadata ops/s'],
        rows.map((r) => [r.entity === entity ? el('strong', null, r.entity) :
          link('component.html', { layer, entity: r.entity, from, to }, r.entity),
        rate(r.read_bw), rate(r.write_bw), num(r.iops, 1), num(r.meta_ops_rate, 1)])) :
        note('info', 'No peer reported at the end of the period.'),
      el('p', { className: 'muted' }, `Load over the last ${Math.min(3600, to - from)} s before ${when(to * 1000)}.`));
    } catch (e) {
      showError('comp-peers', e);
    }
  } else {
    put('comp-peers', note('info', 'Peers are listed for forwarding nodes, OSTs and MDTs.'));
  }
  if (!entity) { put('comp-charts', note('info', 'Name a component, or pick one of the peers.')); return; }
  put('comp-title', `${entity} (${layer})`);
  await show(layer, entity, from, to, peers.slice(0, PEERS_DEFAULT));
});
