// Shared by every page of the beacon web UI (docs/web.md): the API
// client (a 401 sends to the log-in page), the navigation bar, DOM
// building that never parses HTML (values go in as text nodes), and the
// formatting of bytes, rates and times. Charts are ECharts (window.echarts,
// loaded by each page from echarts.min.js).

let me = null;

// An API error: status, message and the parameter the API blamed.
export class ApiError extends Error {
  constructor(status, message, param) {
    super(message);
    this.status = status;
    this.param = param || null;
  }
}

// Sends to the log-in page, which returns here after a log-in.
export function toLogin() {
  const here = location.pathname + location.search + location.hash;
  location.assign('login.html?next=' + encodeURIComponent(here));
}

// A same-origin path to go to after a log-in (anything else: the overview).
export function safeNext(v) {
  if (typeof v !== 'string' || !v.startsWith('/') || v.startsWith('//') ||
      v.includes('\\'))
    return 'index.html';
  return v;
}

// Calls the API: path under /api/v1/ with query params (null and ''
// left out); a JSON body for POST. Resolves to the parsed answer; a 401
// goes to the log-in page (unless opts.noRedirect), any other error
// rejects with an ApiError carrying the API's message.
export async function api(path, params, opts = {}) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {}))
    if (v !== null && v !== undefined && v !== '') qs.append(k, String(v));
  const url = '/api/v1/' + path + (qs.toString() ? '?' + qs : '');
  const init = { method: opts.method || 'GET', headers: {},
                 credentials: 'same-origin' };
  if (init.method !== 'GET') {
    if (me && me.csrf) init.headers['X-CSRF-Token'] = me.csrf;
    if (opts.body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(opts.body);
    }
  }
  const r = await fetch(url, init);
  let js = null;
  try { js = await r.json(); } catch (e) { js = null; }
  if (r.status === 401 && !opts.noRedirect) {
    toLogin();
    throw new ApiError(401, 'not logged in');
  }
  if (!r.ok) {
    const msg = js && typeof js.error === 'string' ? js.error : r.statusText;
    throw new ApiError(r.status, msg, js && js.param);
  }
  return js;
}

// The logged-in user ({user, role, csrf}); fetched once per page.
export async function whoami() {
  if (!me) me = await api('me');
  return me;
}

export function isAdmin() { return !!me && me.role === 'admin'; }

// Builds an element: attrs (className, href, title, data-*, id...; no
// event-handler attributes), children as nodes or strings (text nodes).
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) throw new Error('no handler attributes: ' + k);
    if (k === 'className') e.className = v;
    else if (k === 'href') e.setAttribute('href', safeHref(v));
    else e.setAttribute(k, String(v));
  }
  append(e, children);
  return e;
}

function append(e, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// Replaces the children of e (an element or an id) with children.
export function put(e, ...children) {
  if (typeof e === 'string') e = document.getElementById(e);
  e.replaceChildren();
  append(e, children);
  return e;
}

// Only relative links and http(s) ones: never javascript: and the like.
function safeHref(v) {
  const s = String(v);
  return /^(?:[a-z][a-z0-9+.-]*:)/i.test(s) && !/^https?:/i.test(s) ? '#' : s;
}

// Escapes text for the few places that want HTML (ECharts tooltips).
export function esc(v) {
  return String(v).replace(/[&<>"']/g, (c) => ({
    '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  }[c]));
}

// A link to a page of the UI with query params.
export function link(page, params, ...children) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {}))
    if (v !== null && v !== undefined && v !== '') qs.append(k, String(v));
  return el('a', { href: page + (qs.toString() ? '?' + qs : '') }, ...children);
}

export function param(name) {
  return new URLSearchParams(location.search).get(name);
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

export function bytes(n) {
  if (n === null || n === undefined || !isFinite(n)) return '-';
  let v = Number(n), i = 0;
  while (Math.abs(v) >= 1024 && i < UNITS.length - 1) { v /= 1024; i++; }
  return (i ? v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0) : String(Math.round(v))) +
    ' ' + UNITS[i];
}

export function rate(n) { return bytes(n) + '/s'; }

export function num(n, digits = 0) {
  if (n === null || n === undefined || !isFinite(n)) return '-';
  return Number(n).toLocaleString('en-US', { maximumFractionDigits: digits });
}

export function pct(x) {
  return x === null || x === undefined || !isFinite(x) ? '-' :
    (100 * x).toFixed(1) + '%';
}

// Epoch milliseconds of an ISO 8601 time of the API (null stays null).
export function ms(iso) {
  if (!iso) return null;
  const t = Date.parse(iso);
  return isNaN(t) ? null : t;
}

// A time for people: 2024-01-10 21:18:50 UTC.
export function when(t) {
  if (t === null || t === undefined || t === '') return '-';
  const d = new Date(typeof t === 'number' ? t : Date.parse(t));
  if (isNaN(d)) return '-';
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

export function dur(seconds) {
  if (!isFinite(seconds)) return '-';
  const s = Math.round(seconds);
  if (s < 120) return s + ' s';
  if (s < 7200) return Math.round(s / 60) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}

// The API takes epoch seconds: from a datetime-local input (UTC) or ''.
export function inputToEpoch(v) {
  if (!v) return '';
  const t = Date.parse(v.length === 16 ? v + ':00Z' : v + 'Z');
  return isNaN(t) ? '' : Math.floor(t / 1000);
}

export function epochToInput(sec) {
  if (sec === '' || sec === null || !isFinite(sec)) return '';
  return new Date(sec * 1000).toISOString().slice(0, 19);
}

// A table: head (strings), rows (arrays of nodes or strings).
export function table(head, rows, className = 'grid') {
  return el('table', { className },
    el('thead', null, el('tr', null, head.map((h) => el('th', null, h)))),
    el('tbody', null, rows.map((r) => el('tr', null,
      r.map((c) => el('td', null, c))))));
}

// A message box (kind: error, info) with text.
export function note(kind, text) {
  return el('p', { className: 'note ' + kind, role: kind === 'error' ? 'alert' : null }, text);
}

// Shows an error of an API call in the element (or id) where.
export function showError(where, err) {
  const msg = err instanceof ApiError ?
    `The API refused (${err.status}): ${err.message}` +
    (err.param ? ` [${err.param}]` : '') : 'Error: ' + (err && err.message);
  put(where, note('error', msg));
}

// An ECharts instance on the element (or id), resized with the window.
export function chart(where) {
  if (typeof where === 'string') where = document.getElementById(where);
  const c = window.echarts.getInstanceByDom(where) ||
    window.echarts.init(where, null, { renderer: 'canvas' });
  if (!where.dataset.resize) {
    where.dataset.resize = '1';
    window.addEventListener('resize', () => c.resize());
  }
  return c;
}

// Points of /api/v1/series as [t ms, bytes/s] for key (read/write bytes)
// or ops/s for an ops key. The API leaves empty buckets out: a gap
// becomes zeros (and the line drops to zero around a burst).
export function seriesRate(js, key) {
  const step = js.step || 1;
  return zeroGaps((js.points || []).map((p) => [ms(p.t), (p[key] || 0) / step]), step * 1000);
}

// Inserts [t, 0] points where [t ms, v] points are more than stepMs apart.
export function zeroGaps(pts, stepMs) {
  const out = [];
  for (let i = 0; i < pts.length; i++) {
    const prev = i ? pts[i - 1][0] : -Infinity;
    if (pts[i][0] - prev > stepMs) {
      if (i) out.push([prev + stepMs, 0]);
      if (pts[i][0] - stepMs > (i ? prev + stepMs : -Infinity)) out.push([pts[i][0] - stepMs, 0]);
    }
    out.push(pts[i]);
  }
  if (pts.length) out.push([pts[pts.length - 1][0] + stepMs, 0]);
  return out;
}

// The navigation bar: pages, the user and role, log-out. Resolves to
// the user ({user, role, csrf}); a 401 has gone to the log-in page.
export async function nav(active) {
  const who = await whoami();
  const pages = [['index.html', 'Overview'], ['jobs.html', 'Jobs'],
                 ['anomalies.html', 'Anomalies'], ['component.html', 'Components'],
                 ['network.html', 'Network']];
  const out = el('button', { type: 'button', className: 'link', id: 'logout' }, 'Log out');
  out.addEventListener('click', async () => {
    try { await api('logout', null, { method: 'POST' }); } catch (e) { /* gone anyway */ }
    me = null;
    location.assign('login.html');
  });
  const bar = el('nav', { className: 'bar' },
    el('span', { className: 'brand' }, 'beacon'),
    pages.map(([href, name]) => el('a', { href, className: href === active ? 'active' : null }, name)),
    el('span', { className: 'who' },
      el('span', { id: 'nav-user' }, who.user), ' ',
      el('span', { id: 'nav-role', className: 'role ' + who.role }, who.role), ' ', out));
  document.body.prepend(bar);
  return who;
}

// Runs a page's main function after the navigation bar; an error that is
// not a 401 is shown in #main.
export function page(active, main) {
  window.addEventListener('DOMContentLoaded', async () => {
    try {
      const who = await nav(active);
      await main(who);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return;
      const m = document.getElementById('main');
      if (m) showError(m, e);
      console.warn(e);
    }
  });
}

// Which layer an anomaly's component is on (docs/anomaly.md's table).
export function anomalyLayer(a) {
  if (a.kind === 'job_slowdown') return 'job';
  if (a.kind === 'hot_switch') return 'switch';
  if (/-OST[0-9a-f]{4}$/i.test(a.component)) return 'ost';
  if (/-MDT[0-9a-f]{4}$/i.test(a.component)) return 'mds';
  return 'forward';
}
