// The browser checks of tests/integration/web_browser.sh: headless
// Chromium (playwright-core from BCN_NPM_DIR) against a running
// beacon-web serving the web UI. Usage: node web_browser.mjs BASE
// EXPECT.json USER_DATA_DIR. Exits 0 when every check held, 1 with the
// failures listed, 77 when the browser does not start. Screenshots go
// to BCN_SHOTS. Every page's uncaught exceptions and console errors are
// failures, but for the refusals a step expects (a 401 before the
// log-in, a wrong password, another user's job).
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

// console errors and uncaught exceptions; `allow` lists the HTTP statuses
// whose "Failed to load resource" the current step expects
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

async function shot(name) { await page.screenshot({ path: path.join(shots, name + '.png'), fullPage: true }); }
const text = (sel) => page.locator(sel).innerText();
// the ECharts option of the chart in the element sel
const option = (sel) => page.evaluate((s) => {
  const c = window.echarts.getInstanceByDom(document.querySelector(s));
  const o = c && c.getOption();
  return o ? JSON.parse(JSON.stringify({ series: o.series, yAxis: o.yAxis, xAxis: o.xAxis,
    dataZoom: o.dataZoom })) : null;
}, sel);
const canvases = (sel) => page.locator(sel + ' canvas').count();

async function login(user, pw) {
  await page.fill('#login-user', user);
  await page.fill('#login-password', pw);
  await page.click('#login-submit');
}

try {
// --- anonymous: every page sends to the log-in page ---------------------
step = 'anonymous'; allow = [401];
const ovUrl = `/index.html?to=${X.to}&window=${X.window}`;
await page.goto(base + ovUrl);
await page.waitForURL(/\/login\.html\?next=/);
check(new URL(page.url()).searchParams.get('next') === ovUrl, 'a 401 sends to the log-in page with the page to return to');

// --- a wrong password is an error, the right one logs in ----------------
step = 'wrong password'; allow = [401];
await login('admin', 'not-' + X.pw.admin);
await page.locator('#login-error .note.error').waitFor();
check(/wrong user name or password/i.test(await text('#login-error')), 'a wrong password shows an error');
check(/\/login\.html/.test(page.url()), 'a wrong password stays on the log-in page');
await shot('login-error');

step = 'admin log-in'; allow = [];
await login('admin', X.pw.admin);
await page.waitForURL((u) => u.pathname === '/index.html');
await page.locator('#nav-user').waitFor();
check(await text('#nav-user') === 'admin' && await text('#nav-role') === 'admin', 'the nav bar shows the user and role');

// --- overview: every component of the simulation, the heatmap ----------
step = 'overview';
for (const layer of ['forward', 'ost', 'mds'])
  await page.locator(`#ov-${layer} table`).waitFor();
for (const layer of ['forward', 'ost', 'mds']) {
  const shown = await page.locator(`#ov-${layer} tbody tr td:first-child`).allInnerTexts();
  check(JSON.stringify(shown.slice().sort()) === JSON.stringify(X[layer].slice().sort()),
    `overview lists every ${layer} component: ${shown.join(' ')}`);
  const o = await option(`#ov-${layer}-chart`);
  check(o && o.xAxis[0].data.length === X[layer].length, `overview chart of ${layer} has every component`);
}
const bw = await page.locator('#ov-forward tbody tr').first().locator('td').nth(1).innerText();
check(/\d/.test(bw) && !/^0 B\/s$/.test(bw), `a forwarding node shows a bandwidth (${bw})`);
await page.waitForFunction(() => {
  const c = window.echarts.getInstanceByDom(document.getElementById('heatmap'));
  return c && c.getOption().series.length && c.getOption().series[0].data.length;
});
const hm = await page.evaluate(() => {
  const o = window.echarts.getInstanceByDom(document.getElementById('heatmap')).getOption();
  return { rows: o.yAxis[0].data, data: o.series[0].data };
});
check(await canvases('#heatmap') > 0, 'the heatmap is drawn on a canvas');
check(JSON.stringify(hm.rows) === JSON.stringify(X.forward), `the heatmap has a row per forwarding node: ${hm.rows}`);
// the levels by the paper's rule, from the API's peaks: high > 90% of the
// component's highest hour, mid 50-90%, low 10-50%, idle below
const api = await page.evaluate(async (to) => {
  const r = await fetch(`/api/v1/heatmap?layer=forward&from=${to - 24 * 3600}&to=${to}`);
  return r.json();
}, X.to);
const want = [];
for (const c of api.components) {
  const top = Math.max(...c.peak), y = X.forward.indexOf(c.entity);
  c.peak.forEach((v, x) => {
    const f = top > 0 ? v / top : 0;
    want.push([x, y, f > 0.9 ? 3 : f >= 0.5 ? 2 : f >= 0.1 ? 1 : 0]);
  });
}
const got = hm.data.map((d) => [d[0], d[1], d[2]]);
const key = (a) => JSON.stringify(a.slice().sort((p, q) => p[0] - q[0] || p[1] - q[1]));
check(key(got) === key(want), 'the heatmap levels follow the peaks of the API');
check(got.some((d) => d[2] === 3), 'the heatmap has a high hour');
const hmLevels = got.map((d) => d[2]);
check(hmLevels.every((l) => [0, 1, 2, 3].includes(l)), 'heatmap levels are idle, low, mid, high');
await page.locator('#ov-anomalies table').waitFor();
check((await page.locator('#ov-anomalies tbody tr').allInnerTexts()).some((r) => r.startsWith(String(X.anomaly))),
  'the open anomaly is listed on the overview');
await shot('overview');
// the forwarding nodes' latency and queue columns and chart: the API's
const fmt = (v, d) => (v === null || v === undefined ? '-' :
  Number(v).toLocaleString('en-US', { maximumFractionDigits: d }));
const ovApi = await page.evaluate(async ([to, win]) =>
  (await fetch(`/api/v1/overview?to=${to}&window=${win}`)).json(), [X.to, X.window]);
const head = await page.locator('#ov-forward thead th').allInnerTexts();
check(['latency mean (us)', 'latency max (us)', 'queue mean', 'queue max'].every((h) => head.includes(h)),
  `the forwarding table has latency and queue columns: ${head}`);
check(ovApi.forward.some((r) => r.latency_mean_us > 0 && r.queue_max !== null),
  'the API gives the forwarding nodes latency and queue samples');
for (const r of ovApi.forward) {
  const cells = await page.locator('#ov-forward tbody tr').filter({ hasText: r.entity }).first()
    .locator('td').allInnerTexts();
  const want = [fmt(r.latency_mean_us, 1), fmt(r.latency_max_us, 0), fmt(r.queue_mean, 2), fmt(r.queue_max, 0)];
  check(JSON.stringify(cells.slice(5, 9)) === JSON.stringify(want),
    `${r.entity}: latency/queue cells ${cells.slice(5, 9)}, API ${want}`);
}
const fq = await option('#ov-fwdq-chart');
const fqNames = fq ? fq.xAxis[0].data : [];
const byName = Object.fromEntries(ovApi.forward.map((r) => [r.entity, r]));
check(fq && fq.series.length === 3 && await canvases('#ov-fwdq-chart') > 0, 'the latency/queue chart is drawn');
for (const [i, key] of [[0, 'latency_mean_us'], [1, 'queue_mean'], [2, 'queue_max']]) {
  check(fq && JSON.stringify(fq.series[i].data) === JSON.stringify(fqNames.map((n) => byName[n][key])),
    `the latency/queue chart's ${key} is the API's`);
}
await shot('overview-fwd-queue');
// the MDT load by client group, over storefill's busiest hour of exports
await page.goto(`${base}/index.html?to=${X.fill_to}&window=1h`);
await page.locator('#ov-mdsgroup table').waitFor();
const gApi = await page.evaluate(async (to) =>
  (await fetch(`/api/v1/overview?to=${to}&window=1h`)).json(), X.fill_to);
const mdts = gApi.mds.filter((r) => (r.groups || []).length);
check(mdts.length > 0 && gApi.groups_by === 'fwd', `the API splits an MDT's load by group: ${JSON.stringify(gApi.mds)}`);
const gc = await option('#ov-mdsgroup-chart');
for (const m of mdts) {
  const x = gc ? gc.xAxis[0].data.indexOf(m.entity) : -1;
  for (const g of m.groups) {
    const ser = gc && gc.series.find((z) => z.name === g.group);
    check(x >= 0 && ser && ser.data[x] === g.meta_ops_rate,
      `group chart: ${m.entity} ${g.group} ${ser && ser.data[x]}, API ${g.meta_ops_rate}`);
  }
}
const rowsG = await page.locator('#ov-mdsgroup tbody tr').count();
check(rowsG === mdts.reduce((n, m) => n + m.groups.length, 0), `the group table has a row per MDT and group (${rowsG})`);
check((gc ? gc.series.map((z) => z.name) : []).some((n) => /^fwd\d+$/.test(n)), 'a group is a forwarding node (the map)');
await shot('overview-mds-groups');

// --- the injected job name is text everywhere ---------------------------
step = 'jobs list';
await page.goto(`${base}/jobs.html?from=${X.to - 86400}&to=${X.to + 3600}`);
await page.locator('#jobs table').waitFor();
const names = await page.locator('#jobs tbody tr td:nth-child(2)').allInnerTexts();
check(names.includes(X.xss), 'the jobs list shows the injected name as text');
check(await page.locator('#jobs img').count() === 0, 'no element is made of a job name in the list');
await page.click(`#jobs a[href="job.html?id=${X.lone}"]`);
await page.waitForURL(/job\.html\?id=/);
step = 'injected job';
await page.locator('#job-mode').waitFor();
check((await text('#job-title')).includes(X.xss), 'the report title shows the injected name as text');
check(await page.locator('main img').count() === 0, 'no element is made of a job name in the report');
check(await page.evaluate(() => window.__bcnXss === undefined), 'the injected handler never ran');
await shot('job-injected-name');

// --- an anomaly acknowledged through the button -------------------------
step = 'anomaly';
await page.goto(`${base}/anomalies.html?state=open&from=${X.to - 86400}&to=${X.to + 3600}`);
await page.locator('#an table').waitFor();
await page.click(`#an a[href^="anomalies.html?id=${X.anomaly}&"]`);
await page.locator('#an-ack').waitFor();
check(await text('#an-detail-state') === 'open', 'the anomaly is open before');
check((await text('#an')).includes('pct_of_peak'), 'the detail shows the evidence');
await page.waitForFunction(() => {
  const e = document.getElementById('an-chart');
  const c = e && window.echarts.getInstanceByDom(e);
  return c && c.getOption().series.length;
});
const an = await option('#an-chart');
check(an.series[0].data.length > 0, 'the detail charts the component around the window');
await page.click('#an-ack');
await page.waitForFunction(() => document.getElementById('an-detail-state').textContent === 'acknowledged');
const acked = await page.evaluate(async ([id, from, to]) => {
  const r = await fetch(`/api/v1/anomalies?state=acknowledged&from=${from}&to=${to}`);
  return (await r.json()).anomalies.find((a) => a.id === id) || null;
}, [X.anomaly, X.to - 86400, X.to + 3600]);
check(acked && acked.state === 'acknowledged' && acked.acked_by === 'admin', 'the API says acknowledged, by admin');
check(await page.locator('#an-ack').count() === 0, 'the button is gone');
await shot('anomaly-acked');

// --- component page ------------------------------------------------------
step = 'component';
await page.goto(`${base}/component.html?layer=ost&entity=${X.ost[0]}&from=${X.to - 600}&to=${X.to}`);
await page.locator('#comp-peers table').waitFor();
await page.waitForFunction(() => {
  const e = document.getElementById('comp-bw');
  const c = e && window.echarts.getInstanceByDom(e);
  return c && c.getOption().series.length;
});
const peers = await page.locator('#comp-peers tbody tr td:first-child').allInnerTexts();
check(JSON.stringify(peers.slice().sort()) === JSON.stringify(X.ost.slice().sort()), 'the component page lists its peers');
const cs = await option('#comp-bw');
check(cs.series.some((s) => s.name.startsWith(X.ost[0]) && s.data.length > 0), 'the component page charts it');
check(cs.series.some((s) => s.name.startsWith(X.ost[1])), 'and its peers beside it');
await shot('component');

// a forwarding node: its latency and queue length over time, the API's
await page.goto(`${base}/component.html?layer=forward&entity=${X.forward[0]}&from=${X.to - 600}&to=${X.to}`);
await page.waitForFunction(() => {
  const e = document.getElementById('comp-queue');
  const c = e && window.echarts.getInstanceByDom(e);
  return c && c.getOption().series.length;
});
const sApi = await page.evaluate(async ([e, from, to]) =>
  (await fetch(`/api/v1/series?layer=forward&entity=${e}&from=${from}&to=${to}&step=1`)).json(),
[X.forward[0], X.to - 600, X.to]);
const pick = (k) => sApi.points.filter((p) => p[k] !== undefined).map((p) => [Date.parse(p.t), p[k]]);
const lat = await option('#comp-lat'), que = await option('#comp-queue');
for (const [o, name, key] of [[lat, 'mean', 'latency_mean_us'], [lat, 'max', 'latency_max_us'],
  [que, 'mean', 'queue_mean'], [que, 'max', 'queue_max']]) {
  const ser = o && o.series.find((z) => z.name === `${X.forward[0]} ${name}`);
  check(ser && ser.data.length > 0 && JSON.stringify(ser.data) === JSON.stringify(pick(key)),
    `the forwarding node's ${key} over time is the API's (${ser ? ser.data.length : 0} points)`);
}
check(que && que.series.some((z) => z.name.startsWith(X.forward[1])), 'its peers\' queue lengths beside it');
await shot('component-forward');

// --- log out -------------------------------------------------------------
step = 'log out'; allow = [401];
await page.click('#logout');
await page.waitForURL(/login\.html/);
await page.goto(base + '/jobs.html');
await page.waitForURL(/login\.html\?next=/);
check(true, 'after the log-out a page sends to the log-in');

// --- a plain user: their report, the refusal of another's ---------------
step = 'user log-in'; allow = [];
await login(X.plain, X.pw[X.plain]);
await page.waitForURL(/jobs\.html/);
check(await text('#nav-role') === 'user', 'the plain user is shown as a user');
step = 'own report';
await page.goto(`${base}/job.html?id=${X.ckpt}`);
await page.waitForSelector('#job[data-ready="1"]');
check((await text('#job-title')).startsWith(`Job ${X.ckpt}:`), 'the report shows the job id');
check(await text('#job-mode') === X.ckpt_mode, `the report shows the mode ${X.ckpt_mode}`);
{
  const cov = await text('#job-coverage');
  const m = /compute nodes (\d+)\/(\d+)/.exec(cov);
  check(m && m[1] === m[2] && Number(m[2]) > 0, `the coverage line says every compute node reported: ${cov}`);
  check(cov.includes('compute nodes\' own records'), 'the coverage line names the source of the volume');
  check(await canvases('#job-heatmap') > 0, 'the report draws the node heatmap');
  const files = await page.locator('#job section.card', { hasText: 'Files and access patterns' }).innerText();
  check(/consecutive \d+%/.test(files) && files.includes('#'), `the files card groups the N-N files and shows the access pattern: ${files.slice(0, 200)}`);
}
const phases = await page.locator('section:has(h2:text-is("I/O phases")) table').first().locator('tbody tr').count();
check(phases === X.ckpt_io_phases && phases > 0, `the report lists the ${X.ckpt_io_phases} I/O phases`);
const jb = await option('#job-bw');
const line = (n) => (jb.series.find((s) => s.name === n) || { data: [] }).data;
check(line('compute write').length > 0, 'the bandwidth chart has the compute layer');
check(line('forwarding write').length > 0, 'the bandwidth chart has the forwarding layer (from /series)');
check(line('OST write').length > 0, 'the bandwidth chart has the OST layer (from /series)');
check((jb.series[0].markArea || {}).data && jb.series[0].markArea.data.length === X.ckpt_io_phases,
  'the chart marks the I/O phases');
check(await canvases('#job-bw') > 0 && await canvases('#job-sizes') > 0 && await canvases('#job-ops') > 0,
  'the report draws its charts');
check(await page.locator('#job-fwd ~ table tbody tr').count() === X.ckpt_forwarding, 'the report lists the forwarding nodes');
check(await page.locator('#job-ost ~ table tbody tr').count() === X.ckpt_osts, 'the report lists the OSTs');
step = 'zoom';
const z0 = jb.dataZoom[0];
check(z0.start === 0 && z0.end === 100, `the bandwidth chart starts unzoomed: ${z0.start}..${z0.end}`);
const box = await page.locator('#job-bw').boundingBox();
await page.mouse.move(box.x + box.width / 2, box.y + box.height / 3);
for (let i = 0; i < 6; i++) {
  await page.mouse.wheel(0, -240);
  await page.waitForTimeout(50);
}
await page.waitForFunction(() => {
  const c = window.echarts.getInstanceByDom(document.querySelector('#job-bw'));
  const z = c.getOption().dataZoom[0];
  return z.end - z.start < 100;
}, null, { timeout: 10000 }).catch(() => {});
const z1 = (await option('#job-bw')).dataZoom[0];
check(z1.end - z1.start < 100 && z1.start >= 0 && z1.end <= 100,
  `the wheel zooms the bandwidth chart in: ${z1.start}..${z1.end}`);
await shot('job-zoomed');
step = 'own report';
const ag = await page.locator('#job-aggressors').innerText().catch(() => '');
check(ag.includes(String(X.lone)) && ag.includes('interference'), `the report names the accused job as a likely aggressor: ${ag}`);
await shot('job-report');

step = "another's report"; allow = [404];
await page.goto(`${base}/job.html?id=${X.other}`);
await page.locator('#job .note.error').waitFor();
const refusal = await text('#job');
check(/refused \(404\)/.test(refusal), `another user's job shows the API's refusal: ${refusal}`);
check(await page.locator('#job-mode').count() === 0, "and none of that job's report");
await shot('job-refused');

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
console.log('web_browser.mjs: all checks held');
