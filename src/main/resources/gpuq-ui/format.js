import {bytes, duration, h} from './dom.js';

// How a job is written on the page, the same in every view: its resources, its timing, its state.

export function resources(job) {
  const r = job.effectiveResources || job.resources || {};
  if (!r.gpus) return 'CPU only';
  const each = r.gpuMemory ? bytes(r.gpuMemory) : r.gpuFraction ? Math.round(r.gpuFraction * 100) + '%' : 'whole';
  return r.gpus + ' × ' + each;
}

export function timing(job, now) {
  const t = (x) => (x ? Date.parse(x) : null);
  if (job.state === 'QUEUED') return 'waiting ' + duration(now - t(job.createdAt));
  if (job.state === 'RUNNING') return 'running ' + duration(now - t(job.startedAt));
  if (job.startedAt && job.finishedAt) return 'ran ' + duration(t(job.finishedAt) - t(job.startedAt));
  return 'age ' + duration(now - t(job.createdAt));
}

export function stateBadge(state) {
  return h('span', {class: 'state state-' + String(state).toLowerCase()}, state);
}
