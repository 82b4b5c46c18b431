import {follow, get, post} from './api.js';
import {bytes, h, number, setText, TERMINAL} from './dom.js';
import {legend, lineChart} from './charts.js';
import {resources, stateBadge, timing} from './format.js';
import {status} from './page.js';

const MAX_LOG_CHARS = 2_000_000;

/** A value of any shape as text: objects and lists as their JSON. */
function show(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function fieldTable(job) {
  return h('table', {class: 'fields', id: 'job-fields'}, h('tbody', null,
    Object.entries(job).filter(([k]) => k !== 'attempts').map(([k, v]) =>
      h('tr', {'data-field': k}, h('th', null, k), h('td', null, k === 'command' && Array.isArray(v) ? h('code', null, v.join(' ')) : show(v))))));
}

function attemptTable(attempts) {
  // preemptedFor (issue 35): the job a preemption served, given to admins only; others see none.
  const cols = ['attempt', 'node', 'outcome', 'failureReason', 'exitCode', 'budgetBytes', 'peakGpuMemoryBytes', 'pid', 'startedAt', 'finishedAt', 'failureMessage', 'preemptedFor'];
  return h('table', {class: 'grid', id: 'job-attempts'},
    h('thead', null, h('tr', null, cols.map((c) => h('th', null, c)))),
    h('tbody', null, (attempts || []).map((a) => h('tr', {class: a.outcome === 'PREEMPTED' ? 'preempted' : null}, cols.map((c) =>
      h('td', null, c.endsWith('Bytes') ? bytes(a[c]) : show(a[c])))))));
}

/** What a job waits for (issue 37), each a link to the job or sweep it names. */
function dependencyLinks(dependsOn) {
  if (!dependsOn || !dependsOn.length) return [];
  const parts = ['Depends on: '];
  dependsOn.forEach((d, i) => {
    if (i > 0) parts.push(', ');
    const target = d.job !== undefined
      ? h('a', {class: 'dependency', href: '#/job/' + encodeURIComponent(d.job)}, 'job ' + d.job)
      : h('a', {class: 'dependency', href: '#/sweep/' + encodeURIComponent(d.sweep)}, 'sweep ' + d.sweep);
    parts.push(d.condition + ' ', target);
  });
  return parts;
}

export function jobView(main, params, id) {
  const path = '/api/v1/jobs/' + encodeURIComponent(id);
  const title = h('h1', {id: 'job-name'});
  const badge = h('span', {id: 'job-state'});
  const summary = h('p', {class: 'muted', id: 'job-summary'});
  const failure = h('p', {class: 'failure', id: 'job-failure', hidden: true});
  const reason = h('p', {class: 'reason', id: 'job-reason', hidden: true});
  const dependsOn = h('p', {class: 'muted', id: 'job-depends-on', hidden: true});
  const notices = h('p', {class: 'muted', id: 'job-notifications', hidden: true});
  const cancel = h('button', {type: 'button', id: 'job-cancel', hidden: true, onclick: async () => {
    try {
      await post(path + '/cancel');
      refresh();
    } catch (e) {
      status('cancel failed: ' + e.message, true);
    }
  }}, 'Cancel');
  const fields = h('div', {id: 'job-fields-box'});
  const attempts = h('div');
  const chartBox = h('div', {id: 'job-metrics'}, h('p', {class: 'muted'}, 'No metrics reported.'));
  const log = h('pre', {class: 'log', id: 'job-log'});
  const logState = h('span', {class: 'muted', id: 'job-log-state'});
  main.append(h('div', {class: 'title'}, title, badge, cancel), summary, reason, dependsOn, failure, notices,
    h('section', null, h('h2', null, 'Log ', logState), log),
    h('section', null, h('h2', null, 'Metrics'), chartBox),
    h('section', null, h('h2', null, 'Attempts'), attempts),
    h('section', null, h('h2', null, 'Fields'), fields));

  let stopped = false;
  let timer = null;
  let lastJson = null;
  let lastMetrics = null;
  let notificationsPending = false;
  let job = null;
  const aborter = new AbortController();

  async function refresh() {
    clearTimeout(timer);
    try {
      job = await get(path);
      const json = JSON.stringify(job);
      if (json !== lastJson) {
        lastJson = json;
        setText(title, job.name || job.id);
        badge.replaceChildren(stateBadge(job.state));
        cancel.hidden = TERMINAL.has(job.state);
        const parts = ['id ' + job.id, 'owner ' + job.owner, resources(job), 'attempt ' + job.attempt];
        if (job.sweep !== undefined) parts.push('trial ' + job.trial + ' of sweep ' + job.sweep);
        setText(summary, parts.join(' · '));
        setText(reason, job.queuedReason ? 'Queued because: ' + job.queuedReason : '');
        reason.hidden = !job.queuedReason;
        dependsOn.replaceChildren(...dependencyLinks(job.dependsOn));
        dependsOn.hidden = !(job.dependsOn && job.dependsOn.length);
        const msg = job.failureMessage || (job.failureReason ? job.failureReason : '');
        setText(failure, msg ? job.state + (job.failureReason ? ' (' + job.failureReason + ')' : '') + ': ' + msg : '');
        failure.hidden = !msg;
        fields.replaceChildren(fieldTable(job));
        attempts.replaceChildren(attemptTable(job.attempts));
      }
      summary.dataset.timing = timing(job, Date.now());
      await metrics();
      await notifications();
    } catch (e) {
      status('refresh failed: ' + e.message, true);
    }
    // An ended job's page still refreshes while a notification is waiting or being retried, so that
    // its line shows the delivery (or the giving up) without a reload.
    const settled = job && TERMINAL.has(job.state) && lastMetrics !== null && !notificationsPending;
    if (!stopped && !settled) timer = setTimeout(refresh, 2000);
  }

  /** Where its notifications stand (issue 37), and the last error of one not delivered. */
  async function notifications() {
    const body = await get(path + '/notifications');
    const list = body.notifications || [];
    notificationsPending = list.some((n) => n.status === 'WAITING' || n.status === 'DUE');
    notices.hidden = !list.length;
    if (!list.length) return;
    const parts = list.map((n) => n.event + ' ' + n.status.toLowerCase().replace('_', ' ') +
      (n.lastError && n.status !== 'DELIVERED' ? ' after ' + n.attempts + ' tries: ' + n.lastError : ''));
    setText(notices, 'Notifications: ' + parts.join(' · '));
  }

  async function metrics() {
    const body = await get(path + '/metrics');
    const text = JSON.stringify(body.series);
    if (text === lastMetrics) return;
    lastMetrics = text;
    if (!body.series.length) return;
    const byName = new Map();
    body.series.forEach((p, i) => {
      for (const [name, v] of Object.entries(p.values)) {
        if (!byName.has(name)) byName.set(name, []);
        byName.get(name).push([p.step ?? i, v]);
      }
    });
    const series = [...byName].map(([name, points]) => ({name, points}));
    chartBox.replaceChildren(lineChart({series, xLabel: 'step', yLabel: 'value', cls: 'job-metrics-chart'}),
      h('div', {class: 'legend'}, legend(series)));
  }

  async function followLog() {
    let size = 0;
    setText(logState, '(following)');
    try {
      await follow(path + '/logs?follow=true&tail=2000', (text) => {
        if (!text) return;
        // Appended as a text node: a log line is only ever characters on the page.
        log.append(document.createTextNode(text));
        size += text.length;
        if (size > MAX_LOG_CHARS) {
          while (size > MAX_LOG_CHARS / 2 && log.firstChild) {
            size -= log.firstChild.textContent.length;
            log.firstChild.remove();
          }
        }
        const nearEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
        if (nearEnd) log.scrollTop = log.scrollHeight;
      }, aborter.signal);
      setText(logState, '(complete)');
    } catch (e) {
      if (!stopped) setText(logState, '(stopped: ' + e.message + ')');
    }
  }

  refresh();
  followLog();
  return {stop: () => { stopped = true; clearTimeout(timer); aborter.abort(); }};
}
