import {get} from './api.js';
import {h, number} from './dom.js';
import {poller} from './page.js';

const STATES = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'PRUNED'];
const FIGURES = [['gpuHours', 'GPU-h'], ['gpuMemoryGiBHours', 'GPU mem GiB-h'],
  ['measuredGpuMemoryGiBHours', 'measured GiB-h'], ['coreHours', 'core-h'], ['memoryGiBHours', 'mem GiB-h']];

function seconds(v) {
  return v === null || v === undefined ? '' : number(v) + ' s';
}

/** One report (issue 37) as a table: a row per group, then the total. */
function reportTable(id, title, report) {
  const rows = [...report.groups, {...report.total, key: 'total'}];
  return h('section', null, h('h2', null, title),
    h('table', {class: 'grid', id},
      h('thead', null, h('tr', null, [title.split(' ')[1] || 'group', ...STATES, ...FIGURES.map((f) => f[1]),
        'wait p50', 'wait p95', 'wait max'].map((c) => h('th', null, c)))),
      h('tbody', null, rows.map((g) => h('tr', {'data-key': g.key === null ? '' : g.key},
        h('td', null, g.key === null ? '(none)' : String(g.key)),
        ...STATES.map((st) => h('td', null, String((g.jobs || {})[st] || 0))),
        ...FIGURES.map(([k]) => h('td', null, number(g[k] || 0))),
        h('td', null, seconds(g.waitSeconds && g.waitSeconds.p50)),
        h('td', null, seconds(g.waitSeconds && g.waitSeconds.p95)),
        h('td', null, seconds(g.waitSeconds && g.waitSeconds.max)))))));
}

/** Who used what over the last 30 days: per owner and per day (a submitter: their own, and the totals). */
export function usageView(main) {
  const box = h('div', {id: 'usage'}, h('p', {class: 'muted'}, 'Loading usage...'));
  main.append(h('h1', null, 'Usage, last 30 days'), box);
  async function load() {
    const [byOwner, byDay] = await Promise.all([get('/api/v1/usage?by=owner'), get('/api/v1/usage?by=day')]);
    box.replaceChildren(reportTable('usage-by-owner', 'By owner', byOwner),
      reportTable('usage-by-day', 'By day', byDay));
  }
  const refreshing = poller(load, 30000);
  refreshing.refresh(true);
  return refreshing;
}
