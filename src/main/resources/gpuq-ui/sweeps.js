import {get, getChanged, post} from './api.js';
import {h, number, setText, TERMINAL} from './dom.js';
import {color, legend, lineChart, parallelCoordinates} from './charts.js';
import {stateBadge} from './format.js';
import {poller, setParams, status} from './page.js';

function counts(t) {
  return ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'PRUNED']
    .filter((k) => t[k]).map((k) => k.toLowerCase() + ' ' + t[k]).join(' · ');
}

function progress(p) {
  const el = h('progress', {max: 1, value: p || 0});
  return h('span', {class: 'progress'}, el, ' ' + Math.round((p || 0) * 100) + '%');
}

export function sweepsView(main) {
  const tbody = h('tbody', {id: 'sweep-rows'});
  main.append(h('table', {class: 'grid', id: 'sweeps'},
    h('thead', null, h('tr', null, ['Name', 'State', 'Owner', 'Method', 'Progress', 'Trials', 'Best', 'Created'].map((c) => h('th', null, c)))),
    tbody));
  async function load(fresh) {
    const page = await getChanged('/api/v1/sweeps?limit=200', fresh);
    if (page) {
      tbody.replaceChildren(...page.items.map((sw) => h('tr', {'data-id': sw.id},
        h('td', null, h('a', {href: '#/sweep/' + encodeURIComponent(sw.id)}, sw.name || sw.id)),
        h('td', null, stateBadge(sw.state)), h('td', null, sw.owner), h('td', null, sw.method),
        h('td', null, progress(sw.progress)), h('td', null, sw.trials.total + ' (' + counts(sw.trials) + ')'),
        h('td', null, sw.best ? (sw.metric ? sw.metric.name + ' ' : '') + number(sw.best.value) : ''),
        h('td', null, new Date(sw.createdAt).toLocaleString()))));
      if (!page.items.length) tbody.replaceChildren(h('tr', null, h('td', {colspan: 8, class: 'muted'}, 'No sweeps.')));
    }
  }
  const refreshing = poller(load, 3000);
  refreshing.refresh(true);
  return refreshing;
}

const MAX_TRIAL_SERIES = 500;

export function sweepView(main, params, id) {
  const path = '/api/v1/sweeps/' + encodeURIComponent(id);
  const view = {sort: params.get('sort') || 'trial', hidePruned: params.get('hidePruned') === '1'};
  const title = h('h1', {id: 'sweep-name'});
  const badge = h('span');
  const summary = h('p', {class: 'muted', id: 'sweep-summary'});
  const prog = h('div', {id: 'sweep-progress'});
  const best = h('p', {id: 'sweep-best'});
  const cancel = h('button', {type: 'button', id: 'sweep-cancel', hidden: true, onclick: () => act('cancel')}, 'Cancel sweep');
  const close = h('button', {type: 'button', id: 'sweep-close', hidden: true, onclick: () => act('close')}, 'Close (no more trials)');
  const toggle = h('input', {type: 'checkbox', id: 'hide-pruned', checked: view.hidePruned, onchange: (e) => {
    view.hidePruned = e.target.checked;
    keep();
    draw();
  }});
  const bestBox = h('div', {id: 'sweep-best-chart'});
  const curveBox = h('div', {id: 'sweep-curves'});
  const pcBox = h('div', {id: 'sweep-parallel'});
  const table = h('div', {id: 'sweep-trials'});
  main.append(h('div', {class: 'title'}, title, badge, cancel, close), summary, prog, best,
    h('div', {class: 'charts'},
      h('section', null, h('h2', null, 'Trials: metric against step ',
        h('label', {class: 'toggle'}, toggle, ' hide pruned trials')), curveBox),
      h('section', null, h('h2', null, 'Best value over time'), bestBox)),
    h('section', null, h('h2', null, 'Parameters against the metric'), pcBox),
    h('section', null, h('h2', null, 'Trials'), table));

  let sweep = null;
  let trials = [];
  const series = new Map(); // jobId -> {state, points: [{step, value, at}]}

  function keep() {
    const p = new URLSearchParams();
    if (view.sort !== 'trial') p.set('sort', view.sort);
    if (view.hidePruned) p.set('hidePruned', '1');
    setParams(p);
  }

  async function act(what) {
    try {
      await post(path + '/' + what);
      refreshing.refresh();
    } catch (e) {
      status(what + ' failed: ' + e.message, true);
    }
  }

  async function loadTrials() {
    const all = [];
    let cursor = null;
    do {
      const page = await get(path + '/trials?limit=1000' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
      all.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor && all.length < 10000);
    return all;
  }

  async function loadSeries() {
    const metric = sweep.metric && sweep.metric.name;
    if (!metric) return;
    // A trial's points stop changing once it has ended and been read once.
    const todo = trials.slice(0, MAX_TRIAL_SERIES).filter((t) => {
      const known = series.get(t.jobId);
      return !known || !(TERMINAL.has(known.state) && known.state === t.state);
    });
    for (let i = 0; i < todo.length; i += 6) {
      await Promise.all(todo.slice(i, i + 6).map(async (t) => {
        const body = await get('/api/v1/jobs/' + encodeURIComponent(t.jobId) + '/metrics');
        const points = body.series.filter((p) => metric in p.values)
          .map((p, k) => ({step: p.step ?? k, value: p.values[metric], at: Date.parse(p.at)}));
        series.set(t.jobId, {state: t.state, points});
      }));
    }
  }

  function visibleTrials() {
    return trials.filter((t) => !(view.hidePruned && t.state === 'PRUNED'));
  }

  function draw() {
    if (!sweep) return;
    const metric = sweep.metric ? sweep.metric.name : null;
    const goal = sweep.metric ? sweep.metric.goal : 'minimize';
    const shown = visibleTrials();
    // Best so far over time, over every trial's points in the order gpuq read them.
    const all = [];
    for (const t of trials) for (const p of (series.get(t.jobId) || {points: []}).points) if (p.value !== null) all.push(p);
    all.sort((a, b) => a.at - b.at);
    const bestPts = [];
    let b = null;
    for (const p of all) {
      if (b === null || (goal === 'maximize' ? p.value > b : p.value < b)) {
        // A step: the best so far holds until the moment a better value arrives.
        if (b !== null) bestPts.push([p.at, b]);
        b = p.value;
        bestPts.push([p.at, b]);
      }
    }
    if (bestPts.length) bestPts.push([Math.max(all[all.length - 1].at, bestPts[bestPts.length - 1][0]), b]);
    const timeFmt = (v) => new Date(v).toLocaleTimeString();
    bestBox.replaceChildren(bestPts.length ? lineChart({series: [{name: 'best ' + metric, points: bestPts}], xLabel: 'time', yLabel: metric, xFormat: timeFmt, cls: 'best-chart', width: 520})
      : h('p', {class: 'muted'}, metric ? 'No trial has reported ' + metric + ' yet.' : 'This sweep has no metric.'));

    const curves = shown.filter((t) => series.has(t.jobId)).map((t, i) => ({
      name: 'trial ' + t.trial + (t.state === 'PRUNED' ? ' (pruned)' : ''),
      title: 'trial ' + t.trial + ' ' + t.state + ' ' + JSON.stringify(t.parameters),
      cls: 'trial-curve ' + (t.state === 'PRUNED' ? 'pruned' : ''),
      marker: t.state === 'PRUNED' ? '✕' : null,
      color: color(t.trial),
      points: series.get(t.jobId).points.map((p) => [p.step, p.value]),
    }));
    curveBox.replaceChildren(lineChart({series: curves, xLabel: 'step', yLabel: metric || '', cls: 'trial-curves', width: 600}));
    curveBox.dataset.trials = String(curves.length);

    const paramNames = [...new Set(trials.flatMap((t) => Object.keys(t.parameters || {})))].sort();
    const dims = paramNames.map((name) => ({name}));
    if (metric) dims.push({name: metric});
    const rows = shown.map((t) => ({values: Object.assign({}, t.parameters, metric ? {[metric]: t.bestValue} : {}),
      cls: t.state === 'PRUNED' ? 'pruned' : '', title: 'trial ' + t.trial, trial: t.trial}));
    pcBox.replaceChildren(dims.length ? parallelCoordinates({dims, rows, colorOf: (r) => color(r.trial)}) : h('p', {class: 'muted'}, 'No parameters.'));

    table.replaceChildren(trialTable(shown, paramNames));
  }

  function sortKey(t, key) {
    if (key === 'trial') return t.trial;
    if (key === 'value' || key === 'bestValue' || key === 'step' || key === 'state') return t[key];
    return (t.parameters || {})[key.replace(/^param:/, '')];
  }

  function trialTable(rows, paramNames) {
    const desc = view.sort.startsWith('-');
    const key = view.sort.replace(/^-/, '');
    const sorted = [...rows].sort((a, b) => {
      const x = sortKey(a, key);
      const y = sortKey(b, key);
      // Trials without a value sort last either way, as the API's order=metric does.
      if (x === undefined || x === null) return y === undefined || y === null ? a.trial - b.trial : 1;
      if (y === undefined || y === null) return -1;
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return desc ? -c : c;
    });
    const cols = [['trial', 'Trial'], ['state', 'State'], ['bestValue', 'Best'], ['value', 'Latest'], ['step', 'Step'],
      ...paramNames.map((n) => ['param:' + n, n])];
    const head = cols.map(([k, label]) => h('th', {class: 'sortable' + (key === k ? (desc ? ' desc' : ' asc') : ''), 'data-sort': k,
      onclick: () => {
        view.sort = key === k && !desc ? '-' + k : k;
        keep();
        draw();
      }}, label));
    return h('table', {class: 'grid', id: 'trials'}, h('thead', null, h('tr', null, head)),
      h('tbody', null, sorted.map((t) => h('tr', {'data-trial': t.trial, 'data-state': t.state},
        h('td', null, h('a', {href: '#/job/' + encodeURIComponent(t.jobId)}, String(t.trial))),
        h('td', null, stateBadge(t.state)), h('td', {class: 'num'}, number(t.bestValue)), h('td', {class: 'num'}, number(t.value)),
        h('td', {class: 'num'}, number(t.step)),
        paramNames.map((n) => h('td', {class: 'param'}, formatParam((t.parameters || {})[n])))))));
  }

  function formatParam(v) {
    return typeof v === 'number' ? number(v) : v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  }

  async function load(fresh) {
    const sw = await getChanged(path, fresh);
    if (sw) sweep = sw;
    if (sw || fresh || sweep.state === 'RUNNING') {
      trials = await loadTrials();
      await loadSeries();
      setText(title, sweep.name || sweep.id);
      badge.replaceChildren(stateBadge(sweep.state));
      setText(summary, [sweep.method, 'owner ' + sweep.owner, sweep.trials.total + ' trials: ' + counts(sweep.trials),
        sweep.maxConcurrent ? 'at most ' + sweep.maxConcurrent + ' at once' : null,
        sweep.metric ? sweep.metric.goal + ' ' + sweep.metric.name : null].filter(Boolean).join(' · '));
      prog.replaceChildren(progress(sweep.progress));
      setText(best, sweep.best ? `best ${sweep.metric.name} ${number(sweep.best.value)} by trial ${sweep.best.trial} at step ${sweep.best.step} with ${JSON.stringify(sweep.best.parameters)}` : '');
      cancel.hidden = sweep.state !== 'RUNNING';
      close.hidden = sweep.method !== 'external' || sweep.closed || sweep.state !== 'RUNNING';
      draw();
    }
  }
  const refreshing = poller(load, 3000);
  refreshing.refresh(true);
  return refreshing;
}
