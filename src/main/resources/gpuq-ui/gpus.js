import {get, getChanged} from './api.js';
import {bytes, h, s, setText} from './dom.js';
import {color} from './charts.js';
import {poller} from './page.js';

/**
 * One bar per GPU: each job's budget (lighter) with its measured use inside it (darker), the
 * budgets of jobs this token may not see, memory of processes gpuq did not start, and what is free.
 */
function segments(gpu, jobs) {
  const total = gpu.memoryTotalBytes;
  const usedBy = new Map();
  let other = 0;
  for (const p of gpu.processes || []) {
    if (p.jobId) usedBy.set(p.jobId, (usedBy.get(p.jobId) || 0) + p.memoryUsedBytes);
    else other += p.memoryUsedBytes;
  }
  const placed = [];
  for (const job of jobs) {
    const pl = job.placement;
    if (!pl || pl.node !== gpu.node) continue;
    const g = (pl.gpus || []).find((x) => x.index === gpu.index);
    if (g) placed.push({job, budget: g.memoryBytes, used: usedBy.get(job.id) || 0});
  }
  const known = placed.reduce((a, p) => a + p.budget, 0);
  const unseenBudget = Math.max(0, gpu.memoryReservedBytes - known);
  const jobsUsed = [...usedBy.values()].reduce((a, b) => a + b, 0);
  // Use the device reports beyond what the processes account for belongs to no job either.
  other = Math.max(other, gpu.memoryUsedBytes - jobsUsed);
  const headroom = placed.reduce((a, p) => a + Math.max(0, p.budget - p.used), 0);
  const free = Math.max(0, total - gpu.memoryReservedBytes - other);
  return {total, placed, unseenBudget, other, headroom, free, jobsUsed};
}

function bar(seg, width) {
  const H = 28;
  const scale = (b) => (seg.total ? (b / seg.total) * width : 0);
  const svg = s('svg', {class: 'gpu-bar', width, height: H, viewBox: `0 0 ${width} ${H}`, preserveAspectRatio: 'none'});
  let x = 0;
  seg.placed.forEach((p, i) => {
    const bw = scale(p.budget);
    const label = `${p.job.owner}/${p.job.name || p.job.id}: uses ${bytes(p.used)} of ${bytes(p.budget)}`;
    const g = s('g', {class: 'job-seg', 'data-job': p.job.id},
      s('rect', {x, y: 0, width: bw, height: H, class: 'budget', fill: color(i)}, s('title', null, label)),
      s('rect', {x, y: 6, width: Math.min(bw, scale(p.used)), height: H - 12, class: 'used', fill: color(i)}, s('title', null, label)));
    if (p.used > p.budget) g.append(s('rect', {x: x + bw, y: 6, width: scale(p.used - p.budget), height: H - 12, class: 'over'}));
    svg.append(g);
    x += bw;
  });
  const plain = (w, cls, title) => {
    if (w <= 0) return;
    svg.append(s('rect', {x, y: 0, width: scale(w), height: H, class: cls}, s('title', null, title)));
    x += scale(w);
  };
  plain(seg.unseenBudget, 'unseen', 'budgets of jobs of other owners: ' + bytes(seg.unseenBudget));
  plain(seg.other, 'other', 'processes gpuq did not start: ' + bytes(seg.other));
  plain(seg.free, 'free', 'free: ' + bytes(seg.free));
  return svg;
}

export function gpusView(main) {
  const box = h('div', {id: 'gpus'});
  main.append(h('p', {class: 'legend'},
    h('span', {class: 'key budget'}), 'job budget ', h('span', {class: 'key used'}), 'measured use ',
    h('span', {class: 'key unseen'}), "others' budgets ", h('span', {class: 'key other'}), 'not gpuq ',
    h('span', {class: 'key free'}), 'free'), box);
  let gpus = [];
  let jobs = [];

  function render() {
    const byNode = new Map();
    for (const g of gpus) {
      if (!byNode.has(g.node)) byNode.set(g.node, []);
      byNode.get(g.node).push(g);
    }
    const out = [];
    for (const [node, list] of byNode) {
      out.push(h('h2', null, 'Node ', node));
      for (const g of list.sort((a, b) => a.index - b.index)) {
        const seg = segments(g, jobs);
        out.push(h('div', {class: 'gpu', 'data-node': g.node, 'data-index': g.index},
          h('div', {class: 'gpu-head'}, h('strong', null, 'GPU ' + g.index), ' ', g.name || '', ' · ',
            bytes(g.memoryTotalBytes), ' · utilisation ', Math.round((g.utilization || 0) * 100) + '%'),
          bar(seg, 720),
          h('div', {class: 'gpu-sum muted'}, `budgets ${bytes(g.memoryReservedBytes)} · used by jobs ${bytes(seg.jobsUsed)} · headroom in budgets ${bytes(seg.headroom)} · not gpuq ${bytes(seg.other)} · free ${bytes(seg.free)}`),
          h('ul', {class: 'gpu-jobs'}, seg.placed.map((p) => h('li', {'data-job': p.job.id},
            h('a', {href: '#/job/' + encodeURIComponent(p.job.id)}, p.job.name || p.job.id), ' (', p.job.owner, '): ',
            h('span', {class: 'use'}, 'uses ' + bytes(p.used) + ' of budget ' + bytes(p.budget)))))));
      }
    }
    if (!out.length) out.push(h('p', {class: 'muted'}, 'No GPUs reported.'));
    box.replaceChildren(...out);
  }

  async function load(fresh) {
    const [g, j] = await Promise.all([getChanged('/api/v1/gpus', fresh), getChanged('/api/v1/jobs?state=RUNNING&limit=1000', fresh)]);
    if (g) gpus = g;
    if (j) jobs = j.items;
    if (g || j || fresh) render();
  }
  const refreshing = poller(load, 2000);
  refreshing.refresh(true);
  return refreshing;
}
