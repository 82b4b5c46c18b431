import {health} from './api.js';
import {bytes, h} from './dom.js';

// Health changes slowly (gpuq measures free space every gpuq.storage.check-interval and the
// holders each minute while short); one small answer every 10 s is enough and costs little.
const REFRESH_MS = 10000;

/**
 * What the banner says, from /actuator/health's answer: null unless the data directory is short,
 * which only an admin's answer carries (storage's details). Exported for its test.
 */
export function storageShortage(answer) {
  const storage = answer && answer.components && answer.components.storage;
  if (!storage || storage.status !== 'DOWN' || !storage.details) return null;
  const d = storage.details;
  return {
    free: d.freeBytes,
    min: d.minFreeBytes,
    path: d.path,
    largest: Array.isArray(d.largest) ? d.largest : [],
  };
}

function holder(x) {
  const size = ' (' + bytes(x.bytes) + ')';
  if (x.job) return [h('a', {class: 'job-link', href: '#/job/' + encodeURIComponent(x.job)}, 'job ' + x.job), size];
  return [String(x.path), size];
}

/**
 * A banner, shown to admins while gpuq's data directory has less free space than
 * gpuq.storage.min-free: how much is free, and who holds the most (docs/ui.md).
 */
export function storageBanner() {
  const el = h('div', {class: 'banner', id: 'storage-low', role: 'alert', hidden: true});
  let timer = null;
  let stopped = false;
  let shown = null;

  function render(short) {
    const key = JSON.stringify(short);
    if (key === shown) return;
    shown = key;
    el.hidden = !short;
    if (!short) {
      el.replaceChildren();
      return;
    }
    const holders = short.largest.map((x, i) => [i ? ', ' : '', holder(x)]);
    el.replaceChildren(
      h('strong', null, 'The data directory is short of space: '),
      bytes(short.free) + ' free in ' + short.path + ', below gpuq.storage.min-free (' + bytes(short.min) +
        '). Submissions are refused and no queued job starts.',
      holders.length ? h('span', {id: 'storage-holders'}, ' Held most by: ', holders, '.') : null,
      ' An admin frees a finished job\u2019s files with DELETE /api/v1/jobs/{id}/files.');
  }

  async function refresh() {
    if (stopped) return;
    if (!document.hidden) {
      try {
        render(storageShortage(await health()));
        // Says that gpuq was asked: a page without the banner then shows that none is due.
        el.dataset.checked = 'true';
      } catch (e) {
        // The queue's own refresh says when gpuq cannot be reached.
      }
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  }
  refresh();
  return {el, stop: () => { stopped = true; clearTimeout(timer); }};
}
