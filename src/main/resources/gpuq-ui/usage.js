import {get} from './api.js';
import {h, number, s} from './dom.js';
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

/**
 * One owner's last 30 days as bars (plain SVG): GPU-hours a day, or core-hours where the owner
 * held no GPU; each bar's title says the day and the figure.
 */
function ownerChart(owner, byDay, days) {
  const figure = byDay.groups.some((g) => g.gpuHours > 0) ? ['gpuHours', 'GPU-h'] : ['coreHours', 'core-h'];
  const values = new Map(byDay.groups.map((g) => [g.key, g[figure[0]] || 0]));
  const max = Math.max(...days.map((d) => values.get(d) || 0), 0);
  const width = 4 + days.length * 10;
  const height = 60;
  const bars = days.map((d, i) => {
    const v = values.get(d) || 0;
    const bar = max > 0 ? Math.max(v > 0 ? 1 : 0, Math.round((v / max) * (height - 10))) : 0;
    return s('rect', {x: 2 + i * 10, y: height - bar, width: 8, height: bar, 'data-day': d},
      s('title', null, d + ': ' + number(v) + ' ' + figure[1]));
  });
  return h('figure', {class: 'usage-chart', 'data-owner': owner},
    h('figcaption', null, owner + ' (' + figure[1] + ' a day, max ' + number(max) + ')'),
    s('svg', {width, height, viewBox: '0 0 ' + width + ' ' + height, role: 'img',
      'aria-label': owner + ', ' + figure[1] + ' a day'},
    s('line', {x1: 0, y1: height - 0.5, x2: width, y2: height - 0.5, stroke: 'currentColor'}), ...bars));
}

/** The last 30 UTC days, oldest first, as the report's day keys. */
function lastDays() {
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  return Array.from({length: 30}, (_, i) => new Date(today - (29 - i) * 86400000).toISOString().slice(0, 10));
}

/** Who used what over the last 30 days: per owner and per day (a submitter: their own, and the totals). */
export function usageView(main) {
  const box = h('div', {id: 'usage'}, h('p', {class: 'muted'}, 'Loading usage...'));
  main.append(h('h1', null, 'Usage, last 30 days'), box);
  async function load() {
    const [byOwner, byDay] = await Promise.all([get('/api/v1/usage?by=owner'), get('/api/v1/usage?by=day')]);
    const owners = byOwner.groups.map((g) => g.key).filter((k) => k !== null);
    const perOwner = await Promise.all(owners.map((o) =>
      get('/api/v1/usage?by=day&owner=' + encodeURIComponent(o))));
    const days = lastDays();
    box.replaceChildren(
      h('section', {id: 'usage-charts'}, h('h2', null, 'Per owner, over days'),
        ...owners.map((o, i) => ownerChart(o, perOwner[i], days))),
      reportTable('usage-by-owner', 'By owner', byOwner),
      reportTable('usage-by-day', 'By day', byDay));
  }
  const refreshing = poller(load, 30000);
  refreshing.refresh(true);
  return refreshing;
}
