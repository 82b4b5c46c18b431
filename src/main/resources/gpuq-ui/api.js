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
 */
const etags = new Map();
export async function getChanged(path, fresh) {
  if (fresh) etags.delete(path);
  const seen = etags.get(path);
  const extra = seen ? {'If-None-Match': seen.etag} : {};
  const res = await fetch(path, {headers: headers(extra), cache: 'no-store'});
  if (res.status === 304 && seen) return null;
  if (!res.ok) throw await failure(res);
  const body = await res.json();
  const etag = res.headers.get('ETag');
  if (etag) etags.set(path, {etag});
  else etags.delete(path);
  return body;
}

export function forget(path) {
  etags.delete(path);
}

export async function post(path) {
  const res = await fetch(path, {method: 'POST', headers: headers(), cache: 'no-store'});
  if (!res.ok) throw await failure(res);
  return res.json();
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
