// The browser checks of tests/integration/web_network_browser.sh:
// headless Chromium (playwright-core from BCN_NPM_DIR) against a running
// beacon-web over net_job.sh's fabric. Usage: node web_network_browser.mjs
// BASE EXPECT.json USER_DATA_DIR. Exits 0 when every check held, 1 with
// the failures listed, 77 when the browser does not start. Screenshots go
// to BCN_SHOTS as network-*.png. The figures the pages must show are the
// API's (fetched in the page with the same session) and the fabric of
// EXPECT.json; console errors and uncaught exceptions are failures, but
// for the 401 before the log-in and the plain user's 403.
import { createRequire } from 'node:module';
import { readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const [base, expectFile, userDir] = process.argv.slice(2);
const X = JSON.parse(readFileSync(expectFile, 'utf8'));
const shots = process.env.BCN_SHOTS || path.join(userDir, 'shots');
mkdirSync(shots, { recursive: true });
const require = createRequire(path.join(process.env.BCN_NPM_DIR, 'package.json'));
const { chromium } = require('playwright-core');

const bad = [];
function check(cond, what) {
  if (!cond) { bad.push(what); console.error('FAIL:', what); } else console.log('ok:', what);
}

let ctx;
try {
  ctx = await chromium.launchPersistentContext(userDir, {
    executablePath: process.env.BCN_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 1000 },
  });
} catch (e) {
  console.error('the browser did not start:', e.message);
  process.exit(77);
}
const page = ctx.pages()[0] || await ctx.newPage();
page.setDefaultTimeout(60000);

let step = 'start', allow = [];
const errors = [];
page.on('pageerror', (e) => errors.push(`${step}: uncaught ${e.message}`));
page.on('console', (m) => {
  if (m.type() !== 'error') return;
  const t = m.text();
  const st = /Failed to load resource: the server responded with a status of (\d+)/.exec(t);
  if (st && allow.includes(Number(st[1]))) return;
  errors.push(`${step}: console ${t} (${m.location().url})`);
});
page.on('dialog', (d) => { errors.push(`${step}: dialog ${d.message()}`); d.dismiss(); });

async function shot(name) { await page.screenshot({ path: path.join(shots, 'network-' + name + '.png'), fullPage: true }); }
const text = (sel) => page.locator(sel).innerText();
const option = (sel) => page.evaluate((s) => {
  const c = window.echarts.getInstanceByDom(document.querySelector(s));
  const o = c && c.getOption();
  return o ? JSON.parse(JSON.stringify({ series: o.series, xAxis: o.xAxis, dataZoom: o.dataZoom })) : null;
}, sel);
// an API answer with the page's session
const apiGet = (p) => page.evaluate(async (u) => {
  const r = await fetch('/api/v1/' + u);
  return { status: r.status, js: await r.json() };
}, p);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

async function login(user) {
  await page.goto(base + '/login.html');
  await page.fill('#login-user', user);
  await page.fill('#login-password', X.pw[user]);
  await page.click('#login-submit');
  await page.waitForURL((u) => !/login\.html/.test(u.pathname));
  await page.locator('#nav-user').waitFor();
}

async function logout() {
  await page.click('#logout');
  await page.waitForURL(/login\.html/);
}

const win = `from=${X.from}&to=${X.to}&step=${X.step}`;

// the report's network section against the API's network part
async function jobNetwork(id, flagged) {
  await page.goto(`${base}/job.html?id=${id}`);
  await page.waitForSelector('#job[data-ready="1"]');
  const r = (await apiGet('jobs/' + id)).js;
  const n = r.network;
  check(n && (n.switches || []).length === X.switches.length, `job ${id}: the API has a network part`);
  check(await page.locator('#job-net').count() === 1, `job ${id}: the report has a Network section`);
  const fig = await text('#job-net-imbalance');
  check(fig === Number(n.imbalance).toFixed(2), `job ${id}: the imbalance ${fig} is the API's ${n.imbalance}`);
  const fin = (r.findings || []).some((f) => f.code === 'switch_imbalance');
  check(fin === flagged, `job ${id}: the API ${flagged ? 'has' : 'has no'} switch_imbalance finding`);
  const cls = await page.locator('#job-net-imbalance').getAttribute('class');
  check(/flagged/.test(cls || '') === flagged, `job ${id}: the figure is ${flagged ? '' : 'not '}highlighted`);
  check(await page.locator('#job-net-finding').count() === (flagged ? 1 : 0) &&
    /flagged-card/.test(await page.locator('#job-net').getAttribute('class')) === flagged,
  `job ${id}: the section is ${flagged ? '' : 'not '}marked with the finding`);
  const b = await option('#job-net-bytes');
  check(b && same(b.xAxis[0].data, n.switches.map((s) => s.switch)) &&
    same(b.series[0].data, n.switches.map((s) => s.xmit_bytes)) &&
    same(b.series[1].data, n.switches.map((s) => s.rcv_bytes)), `job ${id}: the bar chart has the API's bytes per switch`);
  const h = await option('#job-net-hist');
  check(h && same(h.series[0].data, n.histogram.counts), `job ${id}: the histogram has the API's counts ${n.histogram.counts}`);
  const rows = await page.locator('#job-net table tbody tr td:first-child').allInnerTexts();
  check(same(rows, n.switches.map((s) => s.switch)), `job ${id}: the table lists the job's switches`);
  return fig;
}

try {
step = 'admin log-in'; allow = [401];
await login('admin');
allow = [];
check(await page.locator('nav.bar a[href="network.html"]').count() === 1, 'the nav bar links the network page');

// --- the fabric's switches over job 701's window --------------------------
step = 'switches';
await page.goto(`${base}/network.html?${win}`);
await page.waitForSelector('#net[data-ready="1"]');
const v = await apiGet('network/switches?' + win);
check(v.status === 200, 'the API answers the administrator');
const api = new Map(v.js.switches.map((s) => [s.switch, s]));
const shown = await page.locator('#net-switches tbody tr').evaluateAll((trs) => trs.map((tr) => ({
  sw: tr.dataset.switch,
  vals: [...tr.querySelectorAll('td')].map((td) => {
    const s = td.querySelector('[data-value]');
    return s ? Number(s.dataset.value) : null;
  }),
  port: (tr.querySelector('[data-port]') || { dataset: {} }).dataset.port || null,
})));
check(same(shown.map((r) => r.sw).sort(), [...api.keys()].sort()), `the page lists the API's switches: ${shown.map((r) => r.sw)}`);
check(same(shown.map((r) => r.sw).sort(), X.switches), 'which are the four leaves of the fabric');
const secs = X.to - X.from;
for (const r of shown) {
  const s = api.get(r.sw) || {};
  const want = [null, null, s.uplink_xmit_bytes, s.uplink_rcv_bytes, (s.uplink_xmit_bytes + s.uplink_rcv_bytes) / secs,
    s.downlink_xmit_bytes, s.downlink_rcv_bytes, (s.downlink_xmit_bytes + s.downlink_rcv_bytes) / secs,
    s.xmit_bytes, s.rcv_bytes, null];
  check(r.vals.length === want.length && r.vals.every((x, i) => (want[i] === null ? x === null : near(x, want[i]))),
    `${r.sw}: the row has the API's bytes and rates`);
}
// leaf2's port 5, the uplink the records run at 96% of its rate
const l2 = await apiGet('network/switches/leaf2/series?' + win);
const top = l2.js.ports.reduce((a, p) => (p.xmit_bytes + p.rcv_bytes > a.xmit_bytes + a.rcv_bytes ? p : a));
const l2row = shown.find((r) => r.sw === 'leaf2');
check(l2row && l2row.port === String(top.port) && top.port === 5, `leaf2's busiest port is the API's: ${l2row && l2row.port}`);
await shot('switches');

// --- a chosen switch over time -----------------------------------------
step = 'switch chart';
await page.click('#net-switches a:text-is("leaf2")');
await page.waitForURL(/switch=leaf2/);
await page.waitForSelector('#net[data-ready="1"]');
let o = await option('#net-chart');
const t0 = Date.parse(l2.js.from), st = l2.js.step_s;
const ports = l2.js.ports.slice().sort((a, b) => a.port - b.port);
check(same(ports.map((p) => p.port), X.ports), 'the API has the six ports of leaf2');
check(o && same(o.series.map((s) => s.name), ports.flatMap((p) => [`port ${p.port} xmit`, `port ${p.port} rcv`])),
  `the chart has a line per port and direction: ${o && o.series.map((s) => s.name)}`);
let okPts = true;
for (const p of ports)
  for (const [d, k] of [['xmit', 0], ['rcv', 1]]) {
    const s = o.series.find((x) => x.name === `port ${p.port} ${d}`);
    const want = p.series.map((b, i) => [t0 + i * st * 1000, b[k] / st]);
    if (!s || s.data.length !== want.length || !s.data.every((q, i) => q[0] === want[i][0] && near(q[1], want[i][1]))) okPts = false;
  }
check(okPts, 'every line has the API\'s points (bytes per bucket over the step)');
check(o.series.find((s) => s.name === 'port 5 xmit').data.some((q) => q[1] > 0), 'the hot uplink is drawn above zero');
check(o.dataZoom.length === 2 && o.dataZoom[0].start === 0 && o.dataZoom[0].end === 100, 'the chart zooms (inside and slider)');
check(await page.locator('#net-chart canvas').count() > 0, 'the chart is drawn on a canvas');
await shot('switch-ports');
await page.selectOption('#net-mode', 'updown');
await page.check('#net-stacked');
o = await option('#net-chart');
const sum = (kind, k) => ports.filter((p) => p.kind === kind)[0].series.map((_, i) =>
  ports.filter((p) => p.kind === kind).reduce((a, p) => a + p.series[i][k], 0) / st);
const ul = o.series.find((s) => s.name === 'uplink xmit'), dl = o.series.find((s) => s.name === 'downlink rcv');
check(same(o.series.map((s) => s.name), ['uplink xmit', 'uplink rcv', 'downlink xmit', 'downlink rcv']),
  `uplink/downlink mode: ${o.series.map((s) => s.name)}`);
check(ul && same(ul.data.map((q) => q[1]), sum('switch', 0)) && dl && same(dl.data.map((q) => q[1]), sum('host', 1)),
  'the uplink and downlink lines sum the API\'s ports by kind');
check(o.series.every((s) => s.stack === 'all'), 'the lines are stacked when asked');
await shot('switch-updown');

// --- the even job: its network part, not flagged --------------------------
step = 'even job';
const even = await jobNetwork(X.even, false);
check(even === '1.00', `the even job's figure is 1.00: ${even}`);
await shot('job-even');
await logout();

// --- alice: the refusal, then her uneven job ------------------------------
step = 'alice network'; allow = [401, 403];
await login('alice');
await page.goto(`${base}/network.html?${win}`);
await page.locator('#net-refused').waitFor();
const msg = await text('#net-refused');
check(/administrators only/.test(msg) && /403/.test(msg), `a plain user gets the refusal: ${msg}`);
check(await page.locator('#net-switches').count() === 0 && await page.locator('#net-chart').count() === 0,
  'and no switch of the fabric');
await shot('refused');
step = 'uneven job'; allow = [];
const uneven = await jobNetwork(X.uneven, true);
check(uneven === X.imbalance, `the uneven job's figure is ${X.imbalance}: ${uneven}`);
check(await page.locator('#job-net a[href^="network.html"]').count() === 0, 'a plain user gets no link to the fabric view');
await shot('job-uneven');
} catch (e) {
  bad.push(`${step}: ${e.message}`);
  console.error(`FAIL: ${step}: ${e.message}`);
  console.error('the page shows:', await page.locator('main').innerText().catch(() => '?'));
  await shot('failure').catch(() => {});
}
step = 'end'; allow = [];
check(errors.length === 0, 'no console errors:\n  ' + errors.join('\n  '));
await ctx.close();
if (bad.length) { console.error(`${bad.length} failures`); process.exit(1); }
console.log('web_network_browser.mjs: all checks held');
