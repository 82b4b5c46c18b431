import {getChanged, post, whenShared} from './api.js';
import {h, setText, TERMINAL} from './dom.js';
import {poller, setParams, status} from './page.js';
import {resources, stateBadge, timing} from './format.js';
import {storageBanner} from './storage.js';

const STATES = ['', 'QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'PRUNED'];
// A submitted job shows within about a second; an unchanged queue costs a 304 with no body, and
// tabs of one token share their answers (api.js).
const REFRESH_MS = 1000;

function labelChips(labels) {
  return Object.entries(labels || {}).map(([k, v]) => h('span', {class: 'chip'}, k + '=' + v));
}

export function queueView(main, params) {
  const filters = {
    state: params.get('state') || '',
    owner: params.get('owner') || '',
    label: params.get('label') || '',
    sweep: params.get('sweep') || '',
  };
  const limit = Math.min(1000, Number(params.get('limit')) || 100);
  const rows = new Map();
  const selected = new Set();
  let jobs = [];

  const stateSelect = h('select', {id: 'filter-state', onchange: (e) => setFilter('state', e.target.value)},
    STATES.map((st) => h('option', {value: st}, st || 'any state')));
  stateSelect.value = filters.state;
  const input = (name, placeholder) => {
    const el = h('input', {id: 'filter-' + name, type: 'search', placeholder, value: filters[name]});
    el.addEventListener('change', () => setFilter(name, el.value.trim()));
    return el;
  };
  const count = h('span', {class: 'muted', id: 'queue-count'});
  const cancelSelected = h('button', {id: 'cancel-selected', type: 'button', disabled: true, onclick: cancelSelection}, 'Cancel selected');
  const allBox = h('input', {type: 'checkbox', title: 'select all cancellable', onchange: (e) => selectAll(e.target.checked)});
  const tbody = h('tbody', {id: 'queue-rows'});
  const empty = h('p', {class: 'muted', id: 'queue-empty', hidden: true}, 'No jobs match.');
  const storage = storageBanner();
  main.append(
    storage.el,
    h('div', {class: 'toolbar'},
      stateSelect, input('owner', 'owner'), input('label', 'label key:value'), input('sweep', 'sweep id'),
      cancelSelected, count),
    h('table', {class: 'grid', id: 'queue'},
      h('thead', null, h('tr', null, h('th', null, allBox), ['State', 'Owner', 'Name', 'Labels', 'GPUs × budget', 'Time', 'Queued because', ''].map((c) => h('th', null, c)))),
      tbody),
    empty);

  function setFilter(name, value) {
    filters[name] = value;
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(filters)) if (v) p.set(k, v);
    if (limit !== 100) p.set('limit', limit);
    setParams(p);
    refreshing.refresh(true);
  }

  function listPath() {
    const p = new URLSearchParams();
    if (filters.state) p.set('state', filters.state);
    if (filters.label) p.append('label', filters.label);
    if (filters.sweep) p.append('label', 'sweep:' + filters.sweep);
    p.set('limit', limit);
    return '/api/v1/jobs?' + p.toString();
  }

  function row(job) {
    const box = h('input', {type: 'checkbox', class: 'select', onchange: (e) => {
      if (e.target.checked) selected.add(job.id); else selected.delete(job.id);
      cancelSelected.disabled = selected.size === 0;
    }});
    const cancel = h('button', {type: 'button', class: 'cancel', onclick: () => cancelJobs([job.id])}, 'Cancel');
    const cells = {
      state: h('td'), owner: h('td'), name: h('td', null, h('a', {class: 'job-link', href: '#/job/' + encodeURIComponent(job.id)})),
      labels: h('td', {class: 'labels'}), resources: h('td'), time: h('td', {class: 'num'}), reason: h('td', {class: 'reason'}),
    };
    const tr = h('tr', {'data-id': job.id}, h('td', null, box), cells.state, cells.owner, cells.name, cells.labels,
      cells.resources, cells.time, cells.reason, h('td', null, cancel));
    return {tr, box, cancel, cells, json: null};
  }

  function update(r, job, now) {
    const json = JSON.stringify(job);
    if (r.json !== json) {
      r.json = json;
      r.job = job;
      if (r.cells.state.dataset.state !== job.state) {
        r.cells.state.dataset.state = job.state;
        r.cells.state.replaceChildren(stateBadge(job.state));
      }
      setText(r.cells.owner, job.owner);
      setText(r.cells.name.firstChild, job.name || job.id);
      r.cells.labels.replaceChildren(...labelChips(job.labels));
      setText(r.cells.resources, resources(job));
      setText(r.cells.reason, job.queuedReason || '');
      const done = TERMINAL.has(job.state);
      r.cancel.hidden = done;
      r.box.disabled = done;
      if (done && selected.delete(job.id)) r.box.checked = false;
    }
    setText(r.cells.time, timing(job, now));
  }

  function render() {
    const now = Date.now();
    const shown = jobs.filter((j) => !filters.owner || j.owner === filters.owner);
    const keep = new Set(shown.map((j) => j.id));
    for (const [id, r] of rows) {
      if (!keep.has(id)) {
        r.tr.remove();
        rows.delete(id);
        selected.delete(id);
      }
    }
    // Rows are updated in place and only moved when their order changed: nothing is redrawn that
    // did not change, so a refresh does not flicker and keeps the selection.
    let prev = null;
    for (const job of shown) {
      let r = rows.get(job.id);
      if (!r) {
        r = row(job);
        rows.set(job.id, r);
      }
      update(r, job, now);
      const expected = prev ? prev.nextSibling : tbody.firstChild;
      if (expected !== r.tr) tbody.insertBefore(r.tr, expected);
      prev = r.tr;
    }
    empty.hidden = shown.length > 0;
    setText(count, shown.length + (shown.length === 1 ? ' job' : ' jobs') + (jobs.length >= limit ? ' (newest ' + limit + ')' : ''));
    cancelSelected.disabled = selected.size === 0;
  }

  async function load(fresh) {
    const page = await getChanged(listPath(), fresh);
    if (page) jobs = page.items;
    if (page || fresh) render();
    else for (const r of rows.values()) setText(r.cells.time, timing(r.job, Date.now()));
  }
  // Up to a quarter less, at random: tabs that were answered together do not stay in step, so
  // that one of them asks and the others use its answer (api.js).
  const refreshing = poller(load, REFRESH_MS, 250);

  function selectAll(on) {
    for (const [id, r] of rows) {
      if (r.box.disabled) continue;
      r.box.checked = on;
      if (on) selected.add(id); else selected.delete(id);
    }
    cancelSelected.disabled = selected.size === 0;
  }

  async function cancelJobs(ids) {
    const failed = [];
    await Promise.all(ids.map((id) => post('/api/v1/jobs/' + encodeURIComponent(id) + '/cancel').catch((e) => failed.push(id + ': ' + e.message))));
    if (failed.length) status('could not cancel ' + failed.join('; '), true);
    refreshing.refresh();
  }

  function cancelSelection() {
    const ids = [...selected];
    if (ids.length) cancelJobs(ids);
  }

  // Another tab's changed answer for this list, and the tab coming into view, redraw at once.
  const unshare = whenShared((path) => {
    if (path === listPath() && !document.hidden) refreshing.refresh();
  });
  const onVisible = () => {
    if (!document.hidden) refreshing.refresh();
  };
  document.addEventListener('visibilitychange', onVisible);

  refreshing.refresh(true);
  return {stop: () => {
    refreshing.stop();
    storage.stop();
    unshare();
    document.removeEventListener('visibilitychange', onVisible);
  }};
}
