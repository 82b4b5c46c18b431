// The API with the token this tab was given. The token lives in sessionStorage (this tab only,
// gone when it closes) and travels as Authorization: Bearer; the page never uses cookies.
const KEY = 'gpuq.token';

export const auth = {
  token: () => sessionStorage.getItem(KEY),
  set: (t) => sessionStorage.setItem(KEY, t),
  clear: () => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || 'HTTP ' + status);
    this.status = status;
    this.problem = problem;
  }
}

let onUnauthorized = () => {};
export function whenUnauthorized(f) {
  onUnauthorized = f;
}

function headers(extra) {
  const h = Object.assign({Accept: 'application/json'}, extra || {});
  const t = auth.token();
  if (t) h.Authorization = 'Bearer ' + t;
  return h;
}

async function failure(res) {
  let problem = null;
  try {
    problem = await res.json();
  } catch (e) {
    problem = null;
  }
  if (res.status === 401) onUnauthorized();
  return new ApiError(res.status, problem);
}

export async function get(path, token) {
  const res = await fetch(path, {headers: token ? {Authorization: 'Bearer ' + token} : headers(), cache: 'no-store'});
  if (!res.ok) throw await failure(res);
  return res.json();
}

/**
 * A GET that answers null when nothing changed since the last answer for the same path: the
 * listings send a weak ETag and answer 304 with no body to If-None-Match. cache: 'no-store' keeps
 * the browser's cache out, so that the 304 reaches this code.
 *
 * Tabs of this browser signed in with the same token share their answers (docs/ui.md, "What a
 * refresh costs"): each answer a tab gets is posted on a BroadcastChannel named after the token,
 * which only tabs holding that token open, and a tab that has an answer for the same path younger
 * than SHARED_MS uses it instead of asking gpuq. Twenty tabs on the queue then ask a few times a
 * second together instead of twenty times. An answer used is at most SHARED_MS older than the one
 * the tab would have asked for, and a changed answer is posted to every tab at once (whenShared),
 * so that a change shows in all of them as soon as one of them has it.
 */
const etags = new Map();
const SHARED_MS = 250;
const shared = new Map(); // path -> {etag, body (null after a 304), at}
let channel = null;
let channelToken = null;

function share() {
  const t = auth.token();
  if (t === channelToken) return channel;
  if (channel) channel.close();
  channel = null;
  channelToken = t;
  shared.clear();
  if (t && typeof BroadcastChannel === 'function') {
    channel = new BroadcastChannel('gpuq-answers:' + t);
    channel.onmessage = (e) => heard(e.data);
  }
  return channel;
}

const watchers = new Set();

/**
 * Calls fn(path) when another tab has just been given a changed answer for path, so that a view
 * showing it redraws at once rather than at its next refresh. Answers the function that stops it.
 */
export function whenShared(fn) {
  watchers.add(fn);
  return () => watchers.delete(fn);
}

// Another tab asking gpuq for a path right now: path -> when it began. A tab about to ask the
// same waits for that answer instead (at most SHARED_MS after the other began), so that tabs whose
// refreshes fall together still ask once.
const asking = new Map();
const awaiting = new Map(); // path -> functions to call when an answer for it is heard

function heardFor(path, ms) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timeout);
      const list = awaiting.get(path);
      if (list) list.delete(done);
      resolve();
    };
    const timeout = setTimeout(done, ms);
    if (!awaiting.has(path)) awaiting.set(path, new Set());
    awaiting.get(path).add(done);
  });
}

function heard(m) {
  if (m && m.forget) {
    shared.clear();
    asking.clear();
    return;
  }
  if (!m || typeof m.path !== 'string') return;
  if (m.asking) {
    asking.set(m.path, Date.now());
    return;
  }
  if (typeof m.etag !== 'string') return;
  asking.delete(m.path);
  keep(m.path, m.etag, m.body);
  for (const done of [...(awaiting.get(m.path) || [])]) done();
  if (m.body != null) for (const fn of watchers) fn(m.path);
}

function keep(path, etag, body) {
  const known = shared.get(path);
  const kept = body != null ? body : known && known.etag === etag ? known.body : null;
  shared.set(path, {etag, body: kept, at: Date.now()});
}

function tell(path, etag, body) {
  const ch = share();
  if (!ch || !etag) return;
  keep(path, etag, body);
  ch.postMessage({path, etag, body});
}

export async function getChanged(path, fresh) {
  const ch = share();
  if (fresh) etags.delete(path);
  if (!fresh) {
    const since = asking.get(path);
    const near = shared.get(path);
    if (since !== undefined && !(near && Date.now() - near.at < SHARED_MS) && Date.now() - since < SHARED_MS) {
      await heardFor(path, SHARED_MS - (Date.now() - since));
    }
  }
  const seen = etags.get(path);
  const near = shared.get(path);
  if (!fresh && near && Date.now() - near.at < SHARED_MS) {
    if (seen && seen.etag === near.etag) return null;
    if (near.body != null) {
      etags.set(path, {etag: near.etag});
      return near.body;
    }
  }
  if (ch) ch.postMessage({path, asking: true});
  const extra = seen ? {'If-None-Match': seen.etag} : {};
  const res = await fetch(path, {headers: headers(extra), cache: 'no-store'});
  if (res.status === 304 && seen) {
    tell(path, seen.etag, null);
    return null;
  }
  if (!res.ok) throw await failure(res);
  const body = await res.json();
  const etag = res.headers.get('ETag');
  if (etag) etags.set(path, {etag});
  else etags.delete(path);
  tell(path, etag, body);
  return body;
}

export function forget(path) {
  etags.delete(path);
  shared.delete(path);
}

export async function post(path) {
  try {
    const res = await fetch(path, {method: 'POST', headers: headers(), cache: 'no-store'});
    if (!res.ok) throw await failure(res);
    return await res.json();
  } finally {
    // A change made here: no tab of this token answers from what it heard before it.
    shared.clear();
    const ch = share();
    if (ch) ch.postMessage({forget: true});
  }
}

/**
 * Follows a job's log: fetch() with a stream can send the Authorization header, which
 * EventSource cannot. Calls onText with each decoded chunk until the log ends or signal aborts.
 */
export async function follow(path, onText, signal) {
  const res = await fetch(path, {headers: headers({Accept: 'text/plain'}), signal, cache: 'no-store'});
  if (!res.ok) throw await failure(res);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const {done, value} = await reader.read();
    if (done) break;
    onText(decoder.decode(value, {stream: true}));
  }
  onText(decoder.decode());
}

/**
 * gpuq's health, as /actuator/health answers this token: its details (storage among them) only
 * for an admin. DOWN answers 503 with the same body, which is what the page wants to read.
 */
export async function health() {
  const res = await fetch('/actuator/health', {headers: headers(), cache: 'no-store'});
  if (res.ok || res.status === 503) return res.json();
  throw await failure(res);
}
