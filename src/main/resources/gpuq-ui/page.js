import {setText} from './dom.js';

// The page's shared parts, which every view uses: where it is (the route in the fragment), its
// filters in the address bar, the status line, and a view's refresh. The views import these from
// here, never from app.js, which imports the views: the modules form no circle.

export function route() {
  const hash = location.hash.replace(/^#/, '') || '/queue';
  const [path, query] = hash.split('?');
  return {path, params: new URLSearchParams(query || '')};
}

/** Puts a view's filters in the address bar without a new history entry or a reload. */
export function setParams(params) {
  const {path} = route();
  const q = params.toString();
  history.replaceState(null, '', '#' + path + (q ? '?' + q : ''));
}

export function status(text, isError) {
  const el = document.getElementById('status');
  setText(el, text);
  el.classList.toggle('error', !!isError);
}

/**
 * A view's refresh: load(fresh) at once on refresh(true), then again ms after each one ended (up to
 * jitter less, at random), until stop(). A failed load is said in the status line; the next one that
 * works clears it.
 */
export function poller(load, ms, jitter = 0) {
  let timer = null;
  let stopped = false;
  async function refresh(fresh) {
    clearTimeout(timer);
    // A page nobody can see asks nothing: open tabs in the background cost gpuq no work.
    if (document.hidden && !fresh) {
      timer = setTimeout(refresh, ms);
      return;
    }
    try {
      await load(fresh);
      status('');
    } catch (e) {
      status('refresh failed: ' + e.message, true);
    }
    // A refresh asked for meanwhile (a click, another tab's answer) has set a timer of its own.
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(refresh, ms - Math.random() * jitter);
  }
  return {refresh, stop: () => { stopped = true; clearTimeout(timer); }};
}
