import {auth, get, whenUnauthorized} from './api.js';
import {clear, setText} from './dom.js';
import {route} from './page.js';
import {queueView} from './queue.js';
import {jobView} from './job.js';
import {gpusView} from './gpus.js';
import {sweepsView, sweepView} from './sweeps.js';
import {usageView} from './usage.js';

// Routes live in the fragment (#/queue?state=RUNNING): a reload or a shared link shows the same
// view with the same filters, and gpuq serves one page for all of them.
const routes = [
  [/^\/queue$/, () => queueView],
  [/^\/job\/([^/]+)$/, () => jobView],
  [/^\/gpus$/, () => gpusView],
  [/^\/sweeps$/, () => sweepsView],
  [/^\/sweep\/([^/]+)$/, () => sweepView],
  [/^\/usage$/, () => usageView],
];

const main = document.getElementById('main');
const signin = document.getElementById('signin');
const signout = document.getElementById('signout');
let current = null;

function show() {
  if (current && current.stop) current.stop();
  current = null;
  clear(main);
  if (!auth.token()) {
    signin.hidden = false;
    signout.hidden = true;
    main.hidden = true;
    document.getElementById('token').focus();
    return;
  }
  signin.hidden = true;
  signout.hidden = false;
  main.hidden = false;
  const {path, params} = route();
  for (const a of document.querySelectorAll('#nav a')) {
    const view = a.getAttribute('data-view');
    a.classList.toggle('active', path === '/' + view || path.startsWith('/' + view.replace(/s$/, '') + '/'));
  }
  for (const [pattern, view] of routes) {
    const m = path.match(pattern);
    if (m) {
      current = view()(main, params, m[1] === undefined ? undefined : decodeURIComponent(m[1]));
      return;
    }
  }
  location.hash = '#/queue';
}

/** A token in the fragment (#token=...) signs in, and leaves the address bar at once. */
function tokenFromFragment() {
  const m = location.hash.match(/^#token=([^&]*)/);
  if (!m) return;
  auth.set(decodeURIComponent(m[1]));
  history.replaceState(null, '', location.pathname + location.search + '#/queue');
}

signin.addEventListener('submit', async (e) => {
  e.preventDefault();
  const token = document.getElementById('token').value.trim();
  const error = document.getElementById('signin-error');
  try {
    await get('/api/v1/jobs?limit=1', token);
    auth.set(token);
    document.getElementById('token').value = '';
    setText(error, '');
    show();
  } catch (err) {
    setText(error, err.status === 401 ? 'That token is not valid.' : 'Could not reach gpuq: ' + err.message);
  }
});

signout.addEventListener('click', () => {
  auth.clear();
  show();
});

whenUnauthorized(() => {
  auth.clear();
  show();
});

tokenFromFragment();
window.addEventListener('hashchange', () => {
  tokenFromFragment();
  show();
});
show();
