// Hourglass dashboard: plain JavaScript, no build step. Every figure and every action goes through
// the public HTTP API with the signed-in token (kept in sessionStorage, never in a URL).
'use strict';

const $ = id => document.getElementById(id);
const TOKEN_KEY = 'hourglass.token';
const OUTCOME_COLORS = { SUCCESS: '#067647', RETRY: '#b54708', FAIL: '#b42318', TIMEOUT: '#7a2ec2', ERROR: '#475467' };
const state = { admin: false, view: 'cluster', cursors: [], page: null, job: null, alertsCursor: null, timer: null };

class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

async function api(method, path, body) {
  const headers = { Authorization: 'Bearer ' + sessionStorage.getItem(TOKEN_KEY) };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  const json = text ? JSON.parse(text) : null;
  if (!r.ok) {
    const e = (json && json.error) || {};
    throw new ApiError(r.status, e.code || String(r.status), (e.code ? e.code + ': ' : '') + (e.message || r.statusText)
      + (e.field ? ' (' + e.field + ')' : ''));
  }
  return json;
}
const get = path => api('GET', path);

function say(message, kind) {
  const b = $('banner');
  b.replaceChildren();
  if (!message) return;
  const d = document.createElement('div');
  d.className = kind || 'error';
  d.id = kind === 'ok' ? 'notice' : 'problem';
  d.textContent = message;
  b.appendChild(d);
}
async function guarded(work) {
  try { await work(); } catch (e) {
    if (e instanceof ApiError && e.status === 401) { signOut('Your token was refused: ' + e.message); return; }
    say(e.message || String(e));
  }
}

// ---- small DOM helpers (textContent only: nothing from the API is parsed as HTML) ----
function el(tag, props, ...children) {
  const n = document.createElement(tag);
  Object.entries(props || {}).forEach(([k, v]) => {
    if (k === 'onclick') n.onclick = v; else if (k === 'class') n.className = v;
    else if (k === 'dataset') Object.assign(n.dataset, v); else n.setAttribute(k, v);
  });
  children.flat().forEach(c => n.append(c instanceof Node ? c : document.createTextNode(c == null ? '' : String(c))));
  return n;
}
function table(t, header, rows) {
  t.replaceChildren(el('tr', {}, header.map(h => el('th', {}, h))));
  rows.forEach(r => t.appendChild(r));
  if (!rows.length) t.appendChild(el('tr', {}, el('td', { colspan: header.length, class: 'muted' }, 'nothing here')));
}
const badge = (text, cls) => el('span', { class: 'badge ' + (cls || text) }, text);
const time = iso => iso ? iso.replace('T', ' ').replace('Z', '') : '';
// datetime-local inputs are in the browser's time zone; the API takes ISO-8601 with an offset
const isoOf = local => local ? new Date(local).toISOString() : null;
function query(params) {
  const q = Object.entries(params).filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => encodeURIComponent(k) + '=' + encodeURIComponent(v)).join('&');
  return q ? '?' + q : '';
}

// ---- sign in, views ----
async function signIn(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
  try {
    await get('/api/v1/cluster'); // any token may read it: proves the token
  } catch (e) {
    sessionStorage.removeItem(TOKEN_KEY);
    $('loginError').textContent = e.message;
    return;
  }
  try { await get('/api/v1/apps'); state.admin = true; } catch (e) { state.admin = false; }
  $('login').hidden = true; $('app').hidden = false; $('nav').hidden = false; $('logout').hidden = false;
  $('who').textContent = state.admin ? 'admin: every app' : 'app token';
  $('bulkApp').hidden = !state.admin;
  if (state.admin) {
    const apps = await get('/api/v1/apps');
    $('bulkApp').replaceChildren(...apps.items.map(a => el('option', { value: a.name }, a.name)));
  }
  show(location.hash.slice(1) || 'cluster');
}
function signOut(why) {
  sessionStorage.removeItem(TOKEN_KEY);
  clearInterval(state.timer);
  $('app').hidden = true; $('nav').hidden = true; $('logout').hidden = true; $('login').hidden = false;
  $('who').textContent = ''; $('token').value = '';
  say(why || '');
}
function show(view) {
  if (!$('view-' + view)) view = 'cluster';
  state.view = view;
  document.querySelectorAll('section.view').forEach(s => s.classList.toggle('active', s.id === 'view-' + view));
  document.querySelectorAll('#nav a').forEach(a => a.classList.toggle('active', a.dataset.view === view));
  clearInterval(state.timer);
  say('');
  const load = { cluster: loadCluster, services: loadServices, schedules: loadSchedules, jobs: () => {}, bulk: loadAudit,
    alerts: () => loadAlerts(false) }[view];
  guarded(load);
  if (view === 'cluster') state.timer = setInterval(() => guarded(loadCluster), 2000);
}

// ---- cluster and charts ----
async function loadCluster() {
  const [cluster, stats, history] = await Promise.all([
    get('/api/v1/cluster'), get('/api/v1/stats'), get('/api/v1/stats/history?resolution=' + $('resolution').value)]);
  $('clusterSummary').textContent = cluster.nodes.length + ' node(s) · master ' + (cluster.master || 'none')
    + ' · assignment epoch ' + cluster.epoch + ' · ' + cluster.shardCount + ' shards · this node '
    + cluster.self + (cluster.connected ? ' (connected to ZooKeeper)' : ' (NOT connected to ZooKeeper)');
  table($('nodes'), ['node', 'address', 'version', 'shards', 'in memory', 'in flight', 'loaded until', 'started'],
    cluster.nodes.map(n => el('tr', { dataset: { node: n.id } },
      el('td', {}, n.id, ' ', n.master ? badge('master') : '', ' ', badge('up')),
      el('td', {}, n.address), el('td', {}, n.version),
      el('td', { title: n.shards.join(', ') }, n.shards.length + ' of ' + cluster.shardCount),
      el('td', {}, n.inMemory), el('td', {}, n.inFlight), el('td', {}, time(n.loadedUntil)), el('td', {}, time(n.startedAt)))));
  const live = Object.entries(stats.liveByState).map(([s, n]) => s + ' ' + n).join(' · ') || 'no live jobs';
  const l = stats.latenessMs;
  $('liveTotals').textContent = live + ' — this node since start: fired ' + stats.firedSinceStart
    + ', lateness p50/p99/max ' + [l.p50, l.p99, l.max].join('/') + ' ms';
  $('historyNode').textContent = history.node;
  drawHistory(history.points);
}
function drawHistory(points) {
  const perSecond = p => v => v * 1000 / Math.max(1, p.ms);
  const xs = points.map(p => Date.parse(p.at));
  chart($('chartFired'), $('legendFired'), xs, [{ name: 'fired/s', color: '#1f5fbf', values: points.map(p => perSecond(p)(p.fired)) }]);
  chart($('chartOutcomes'), $('legendOutcomes'), xs, Object.keys(OUTCOME_COLORS).map(o => ({
    name: o, color: OUTCOME_COLORS[o], values: points.map(p => perSecond(p)(p.attempts[o] || 0)) })));
  chart($('chartLateness'), $('legendLateness'), xs, [
    { name: 'p50', color: '#1f5fbf', values: points.map(p => p.latenessMs.p50) },
    { name: 'p99', color: '#b42318', values: points.map(p => p.latenessMs.p99) }]);
}
function chart(svg, legend, xs, series) {
  const W = svg.clientWidth || 400, H = svg.clientHeight || 170, left = 44, bottom = 16;
  const ns = 'http://www.w3.org/2000/svg';
  const max = Math.max(1, ...series.flatMap(s => s.values));
  const x0 = xs[0] || 0, x1 = xs[xs.length - 1] || 1;
  const sx = x => left + (xs.length > 1 ? (x - x0) / (x1 - x0) : 1) * (W - left - 4);
  const sy = y => 4 + (1 - y / max) * (H - bottom - 8);
  svg.replaceChildren();
  const add = (tag, attrs, text) => {
    const n = document.createElementNS(ns, tag);
    Object.entries(attrs).forEach(([k, v]) => n.setAttribute(k, v));
    if (text !== undefined) n.textContent = text;
    svg.appendChild(n);
  };
  [0, 0.5, 1].forEach(f => {
    add('line', { x1: left, x2: W - 4, y1: sy(max * f), y2: sy(max * f), stroke: '#e5e7eb' });
    add('text', { x: 2, y: sy(max * f) + 3 }, (max * f >= 100 ? Math.round(max * f) : (max * f).toFixed(1)));
  });
  if (xs.length) {
    add('text', { x: left, y: H - 2 }, new Date(x0).toLocaleTimeString());
    add('text', { x: W - 60, y: H - 2 }, new Date(x1).toLocaleTimeString());
  }
  series.forEach(s => {
    if (xs.length) add('polyline', { fill: 'none', stroke: s.color, 'stroke-width': 1.5,
      points: s.values.map((v, i) => sx(xs[i]).toFixed(1) + ',' + sy(v).toFixed(1)).join(' ') });
  });
  legend.replaceChildren(...series.map(s => {
    const last = s.values.length ? s.values[s.values.length - 1] : 0;
    const i = el('i'); i.style.background = s.color;
    return el('span', {}, i, s.name + ' ' + (Math.round(last * 10) / 10));
  }));
}

// ---- services ----
async function loadServices() {
  const [services, stats, history, alerts] = await Promise.all([
    get('/api/v1/services'), get('/api/v1/stats'), get('/api/v1/stats/history'), get('/api/v1/alerts?state=FIRING&limit=500')]);
  const firing = {};
  alerts.items.forEach(a => (firing[a.app + '/' + a.service] = firing[a.app + '/' + a.service] || []).push(a.kind));
  table($('services'), ['service', 'protocol', 'target (PULL: backlog)', 'attempts/s', 'failed', 'in flight / max', 'live jobs', 'state / alerts', ''],
    services.items.map(s => {
      const key = s.app + '/' + s.name;
      const act = history.services[key] || { attemptsLastMinute: 0, failedLastMinute: 0, inFlight: 0 };
      const failed = act.attemptsLastMinute ? Math.round(100 * act.failedLastMinute / act.attemptsLastMinute) + '%' : '—';
      const live = Object.entries(stats.liveByService[key] || {}).map(([st, n]) => st + ' ' + n).join(', ') || 'none';
      // a PULL service has no target: its consumers' backlog instead (ready = due, not reserved)
      const pulled = (stats.pull || {})[key];
      const target = pulled
        ? el('span', { class: 'pull' }, 'ready ' + pulled.ready + ' · reserved ' + pulled.reserved
            + (pulled.ready ? ' · oldest ' + (pulled.oldestReadyAgeMs / 1000).toFixed(1) + ' s' : ''))
        : s.url || s.topic || (s.dubboGroup || '') + ' ' + (s.dubboVersion || '');
      return el('tr', { dataset: { service: key } },
        el('td', {}, key), el('td', {}, s.protocol), el('td', {}, target),
        el('td', {}, (act.attemptsLastMinute / 60).toFixed(1)), el('td', {}, failed),
        el('td', {}, act.inFlight + ' / ' + s.maxInFlight), el('td', {}, live),
        el('td', {}, s.paused ? badge('paused') : '', (firing[key] || []).map(k => badge(k, 'FIRING'))),
        el('td', {},
          el('button', { class: 'edit', onclick: () => editService(s) }, 'Edit'), ' ',
          s.paused
            ? el('button', { class: 'resume', onclick: () => serviceAction(s, 'resume') }, 'Resume')
            : el('button', { class: 'pause', onclick: () => serviceAction(s, 'pause') }, 'Pause')));
    }));
}
// Pause holds every new attempt of the service across the cluster; resume lets them go (docs/api.md, "Flow control")
function serviceAction(s, action) {
  guarded(async () => {
    const key = s.app + '/' + s.name;
    const r = await api('POST', '/api/v1/services/' + encodeURIComponent(s.name) + '/' + action + (state.admin ? query({ app: s.app }) : ''));
    say('Service ' + key + (r.paused ? ' paused (since ' + time(r.pausedAt) + ', by ' + r.pausedBy + ')' : ' resumed'), 'ok');
    await loadServices();
  });
}
function editService(s) {
  const editable = Object.assign({}, s);
  ['name', 'createdAt', 'updatedAt', 'paused', 'pausedAt', 'pausedBy', 'resumedAt'].forEach(k => delete editable[k]);
  Object.keys(editable).forEach(k => editable[k] === null && delete editable[k]);
  $('editingService').textContent = s.app + '/' + s.name;
  $('serviceJson').value = JSON.stringify(editable, null, 2);
  $('serviceEditor').hidden = false;
  $('saveService').onclick = () => guarded(async () => {
    let body;
    try { body = JSON.parse($('serviceJson').value); } catch (e) { say('Not JSON: ' + e.message); return; }
    await api('PUT', '/api/v1/services/' + encodeURIComponent(s.name) + (state.admin ? query({ app: s.app }) : ''), body);
    say('Service ' + s.app + '/' + s.name + ' saved', 'ok');
    await loadServices();
  });
}

// ---- schedules ----
async function loadSchedules() {
  const page = await get('/api/v1/schedules?limit=500');
  table($('schedules'), ['schedule', 'service', 'when', 'next fire times', 'last occurrence', 'state', ''],
    page.items.map(s => {
      const key = s.app + '/' + s.name;
      const last = s.lastOccurrence;
      const act = s.paused ? 'resume' : 'pause';
      return el('tr', { dataset: { schedule: key } },
        el('td', {}, key), el('td', {}, s.service),
        el('td', {}, (s.cron ? 'cron ' + s.cron : 'every ' + s.every) + ' · ' + s.timeZone),
        el('td', { class: 'next' }, s.nextFireTimes.slice(0, 3).map(time).join(' · ')),
        el('td', {}, last ? time(last.time) + ' ' : '—', last && last.state ? badge(last.state) : ''),
        el('td', {}, s.paused ? badge('paused') : badge('active', 'up')),
        el('td', {},
          el('button', { class: act, onclick: () => scheduleAction(s, act) }, act === 'pause' ? 'Pause' : 'Resume'), ' ',
          el('button', { class: 'trigger', onclick: () => scheduleAction(s, 'trigger') }, 'Trigger now')));
    }));
}
function scheduleAction(s, action) {
  guarded(async () => {
    const key = s.app + '/' + s.name;
    const path = '/api/v1/schedules/' + encodeURIComponent(s.name) + '/' + action + (state.admin ? query({ app: s.app }) : '');
    const r = await api('POST', path, action === 'trigger' ? {} : undefined);
    say(action === 'trigger' ? 'Triggered ' + key + ': job ' + r.id : 'Schedule ' + key + (r.paused ? ' paused' : ' resumed'), 'ok');
    await loadSchedules();
  });
}

// ---- jobs ----
function jobFilter() {
  return { bizKey: $('jobBizKey').value.trim(), service: $('jobService').value.trim(), state: $('jobState').value,
    fireFrom: isoOf($('jobFireFrom').value), fireTo: isoOf($('jobFireTo').value) };
}
// A cursor belongs to the filters of its search: Find takes the form's filters, Next and Previous
// keep the ones of the search they page through.
async function findJobs(cursor, filter) {
  state.filter = filter || state.filter;
  const id = state.filter.id;
  let items, next = null;
  if (id) {
    items = [await get('/api/v1/jobs/' + encodeURIComponent(id))];
  } else {
    const page = await get('/api/v1/jobs' + query(Object.assign({}, state.filter.search, { limit: 50, cursor })));
    items = page.items; next = page.nextCursor;
  }
  state.page = { cursor, next };
  table($('jobs'), ['id', 'app', 'service', 'bizKey', 'state', 'fire at', 'attempts', 'last error'],
    items.map(j => el('tr', { class: 'clickable', dataset: { job: j.id }, onclick: () => guarded(() => openJob(j.id)) },
      el('td', {}, j.id), el('td', {}, j.app), el('td', {}, j.service), el('td', {}, j.bizKey),
      el('td', {}, badge(j.state)), el('td', {}, time(j.fireAt)), el('td', {}, j.attempts + ' / ' + j.maxAttempts),
      el('td', {}, j.lastError))));
  $('nextPage').disabled = !next;
  $('prevPage').disabled = !state.cursors.length;
  $('pageInfo').textContent = 'page ' + (state.cursors.length + 1) + (id ? '' : ' · ' + items.length + ' job(s)');
}
async function openJob(id) {
  const [job, executions] = await Promise.all([get('/api/v1/jobs/' + id), get('/api/v1/jobs/' + id + '/executions')]);
  state.job = job;
  $('jobDetail').hidden = false;
  $('detailId').textContent = job.id;
  $('detailState').textContent = job.state; $('detailState').className = 'badge ' + job.state;
  const fields = ['app', 'service', 'bizKey', 'fireAt', 'attempts', 'maxAttempts', 'timeoutMs', 'expireAfterMs',
    'shard', 'createdAt', 'updatedAt', 'lastError'];
  $('detailFields').replaceChildren(...fields.flatMap(f => [el('dt', {}, f), el('dd', { id: 'field-' + f }, job[f])]));
  $('detailPayload').textContent = JSON.stringify(job.payload, null, 2);
  $('detailAttributes').textContent = JSON.stringify(job.attributes, null, 2);
  table($('executions'), ['attempt', 'node', 'fired', 'finished', 'lateness ms', 'outcome', 'message'],
    executions.items.map(x => el('tr', {}, el('td', {}, x.attempt), el('td', {}, x.node), el('td', {}, time(x.firedAt)),
      el('td', {}, time(x.finishedAt)), el('td', {}, x.latenessMs), el('td', {}, x.outcome ? badge(x.outcome, x.outcome === 'SUCCESS' ? 'FINISHED' : 'FAILED') : ''),
      el('td', {}, x.message))));
  const live = job.state === 'DELAYED' || job.state === 'RUNNING';
  $('actFire').disabled = job.state !== 'DELAYED';
  $('actReschedule').disabled = job.state !== 'DELAYED';
  $('actCancel').disabled = !live;
  $('actRetry').disabled = !['FAILED', 'CANCELED', 'EXPIRED'].includes(job.state);
}
function intervene(what, method, suffix, body) {
  return () => guarded(async () => {
    const id = state.job.id;
    if (what === 'Cancel' && !confirm('Cancel job ' + id + '?')) return;
    const job = await api(method, '/api/v1/jobs/' + id + suffix, body && body());
    say(what + ': job ' + id + ' is ' + job.state, 'ok');
    await openJob(id);
  });
}

// ---- bulk actions and audit ----
function bulkBody(dryRun) {
  const b = { action: $('bulkAction').value, service: $('bulkService').value.trim() || null,
    bizKeyPrefix: $('bulkPrefix').value.trim() || null, state: $('bulkState').value || null,
    fireFrom: isoOf($('bulkFireFrom').value), fireTo: isoOf($('bulkFireTo').value),
    max: Number($('bulkMax').value), dryRun };
  if (state.admin) b.app = $('bulkApp').value;
  Object.keys(b).forEach(k => b[k] === null && delete b[k]);
  return b;
}
async function bulkPreview() {
  $('bulkResult').textContent = '';
  const body = bulkBody(true);
  const r = await api('POST', '/api/v1/jobs/bulk', body);
  state.bulk = bulkBody(false);
  $('bulkCount').textContent = 'This will ' + r.action.toLowerCase() + ' ' + r.matched + ' ' + r.state + ' job(s)'
    + (r.more ? ' (more match: run again for the rest)' : '') + '.';
  $('bulkRun').disabled = r.matched === 0;
  $('bulkConfirm').hidden = false;
}
async function bulkRun() {
  $('bulkConfirm').hidden = true;
  const r = await api('POST', '/api/v1/jobs/bulk', state.bulk);
  $('bulkResult').textContent = r.action + ': ' + r.changed + ' changed, ' + r.skipped + ' skipped of ' + r.matched
    + ' matched' + (r.more ? '; more match' : '') + ' (audit ' + r.auditId + ')';
  say('Bulk ' + r.action.toLowerCase() + ' done: ' + r.changed + ' job(s) changed', 'ok');
  await loadAudit();
}
async function loadAudit() {
  const audit = await get('/api/v1/audit?limit=50');
  table($('audit'), ['when', 'who', 'app', 'action', 'request', 'matched', 'changed', 'skipped', 'error'],
    audit.items.map(a => el('tr', {}, el('td', {}, time(a.at)), el('td', {}, a.actor), el('td', {}, a.app),
      el('td', {}, a.action), el('td', {}, el('code', {}, JSON.stringify(a.request))), el('td', {}, a.matched),
      el('td', {}, a.changed), el('td', {}, a.skipped), el('td', {}, a.error))));
}

// ---- alerts ----
async function loadAlerts(more) {
  const page = await get('/api/v1/alerts' + query({ state: $('alertState').value, limit: 50, cursor: more ? state.alertsCursor : null }));
  state.alertsCursor = page.nextCursor;
  const rows = page.items.map(a => el('tr', { dataset: { alert: a.id } },
    el('td', {}, time(a.firedAt)), el('td', {}, a.app + '/' + a.service), el('td', {}, a.kind), el('td', {}, badge(a.state)),
    el('td', {}, a.message), el('td', {}, time(a.resolvedAt)),
    el('td', {}, a.acknowledgedAt ? a.acknowledgedBy + ' at ' + time(a.acknowledgedAt)
      : el('button', { class: 'ack', onclick: () => guarded(async () => {
        await api('POST', '/api/v1/alerts/' + a.id + '/ack');
        say('Alert ' + a.id + ' acknowledged', 'ok');
        await loadAlerts(false);
      }) }, 'Acknowledge'))));
  if (more) rows.forEach(r => $('alerts').appendChild(r));
  else table($('alerts'), ['fired', 'service', 'kind', 'state', 'message', 'resolved', 'acknowledged'], rows);
  $('moreAlerts').hidden = !page.nextCursor;
}

// ---- wiring ----
$('signin').onclick = () => signIn($('token').value.trim());
$('token').onkeydown = e => { if (e.key === 'Enter') signIn($('token').value.trim()); };
$('logout').onclick = () => signOut();
window.onhashchange = () => { if (!$('app').hidden) show(location.hash.slice(1)); };
$('resolution').onchange = () => guarded(loadCluster);
$('refreshServices').onclick = () => guarded(loadServices);
$('refreshSchedules').onclick = () => guarded(loadSchedules);
$('closeEditor').onclick = () => { $('serviceEditor').hidden = true; };
$('findJobs').onclick = () => {
  state.cursors = [];
  guarded(() => findJobs(null, { id: $('jobId').value.trim(), search: jobFilter() }));
};
$('nextPage').onclick = () => { state.cursors.push(state.page.cursor); guarded(() => findJobs(state.page.next)); };
$('prevPage').onclick = () => guarded(() => findJobs(state.cursors.pop()));
$('actFire').onclick = intervene('Fire now', 'POST', '/fire');
$('actRetry').onclick = intervene('Retry', 'POST', '/retry', () => ({}));
$('actCancel').onclick = intervene('Cancel', 'DELETE', '');
$('actReschedule').onclick = intervene('Reschedule', 'PATCH', '', () => ({ fireAt: isoOf($('rescheduleAt').value) }));
$('bulkPreview').onclick = () => guarded(bulkPreview);
$('bulkRun').onclick = () => guarded(bulkRun);
$('bulkAbort').onclick = () => { $('bulkConfirm').hidden = true; };
$('refreshAlerts').onclick = () => guarded(() => loadAlerts(false));
$('alertState').onchange = () => guarded(() => loadAlerts(false));
$('moreAlerts').onclick = () => guarded(() => loadAlerts(true));
if (sessionStorage.getItem(TOKEN_KEY)) signIn(sessionStorage.getItem(TOKEN_KEY));
