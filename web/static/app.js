// The app shell: session, layout, navigation and the client-side router.
// Each page is a module under pages/ exporting render(main, params), loaded
// when first visited.
import { h, mount, status } from './dom.js';
import { api, enc, onSessionExpired, ApiError } from './api.js';

// session holds the signed-in user and their root-level permissions, as
// GET /api/admin/user answers them.
export const session = { user: null, permissions: [] };

// can reports whether the user holds perm at root level. It only hides
// controls; the API checks every request itself.
export function can(perm) {
  return session.permissions.some((p) => p.permission === 'ADMIN' || p.permission === perm);
}

// projectCan resolves to a check like can for one project: the root
// permissions with those of the project roles the user holds there
// (an Owner reviews change requests, a Member edits flags). Like can, it
// only hides controls.
export async function projectCan(projectId) {
  const answer = await api('GET', `/api/admin/user/permissions?project=${enc(projectId)}`);
  const held = answer.permissions || [];
  return (perm) => held.some((p) => p.permission === 'ADMIN' || p.permission === perm);
}

const routes = [
  { re: /^\/login$/, page: 'login', open: true },
  { re: /^\/reset-password$/, page: 'reset-password', open: true },
  { re: /^\/new-user$/, page: 'new-user', open: true },
  { re: /^\/projects$/, page: 'projects' },
  { re: /^\/projects\/([^/]+)$/, page: 'project' },
  { re: /^\/projects\/([^/]+)\/features\/([^/]+)$/, page: 'feature' },
  { re: /^\/projects\/([^/]+)\/health$/, page: 'health' },
  { re: /^\/projects\/([^/]+)\/access$/, page: 'access' },
  { re: /^\/projects\/([^/]+)\/change-requests$/, page: 'changeRequests' },
  { re: /^\/projects\/([^/]+)\/change-requests\/(\d+)$/, page: 'changeRequest' },
  { re: /^\/archive$/, page: 'archive' },
  { re: /^\/events$/, page: 'events' },
  { re: /^\/playground$/, page: 'playground' },
  { re: /^\/segments$/, page: 'segments' },
  { re: /^\/context$/, page: 'context' },
  { re: /^\/environments$/, page: 'environments' },
  { re: /^\/admin\/api-tokens$/, page: 'tokens' },
  { re: /^\/admin\/users$/, page: 'users' },
  { re: /^\/admin\/groups$/, page: 'groups' },
  { re: /^\/admin\/roles$/, page: 'roles' },
  { re: /^\/admin\/settings$/, page: 'settings' },
  { re: /^\/admin\/import-export$/, page: 'import-export' },
  { re: /^\/profile$/, page: 'profile' },
];

const nav = [
  ['/projects', 'Projects'],
  ['/archive', 'Archive'],
  ['/events', 'Event log'],
  ['/segments', 'Segments'],
  ['/context', 'Context fields'],
  ['/environments', 'Environments'],
  ['/playground', 'Playground'],
  ['/admin/api-tokens', 'API tokens', () => can('READ_API_TOKEN') || can('CREATE_API_TOKEN')],
  ['/admin/users', 'Users', () => can('ADMIN')],
  ['/admin/groups', 'Groups', () => can('ADMIN')],
  ['/admin/roles', 'Roles', () => can('ADMIN')],
  ['/admin/settings', 'Settings', () => can('ADMIN')],
  ['/admin/import-export', 'Import/export', () => can('ADMIN')],
];

const root = document.getElementById('app');

// navigate shows path, adding it to the history unless replace.
export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  render();
}

// loginPath is the sign-in page, returning to where the user was.
function loginPath(expiredSession) {
  const here = location.pathname + location.search;
  const q = new URLSearchParams();
  if (expiredSession) q.set('expired', '1');
  if (here !== '/' && !here.startsWith('/login')) q.set('next', here);
  const s = q.toString();
  return s ? `/login?${s}` : '/login';
}

onSessionExpired(() => {
  if (!session.user) return;
  session.user = null;
  navigate(loginPath(true), { replace: true });
});

// loadSession asks who is signed in; false when nobody is.
export async function loadSession() {
  try {
    const me = await api('GET', '/api/admin/user', undefined, { session: false });
    session.user = me.user;
    session.permissions = me.permissions || [];
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      session.user = null;
      session.permissions = [];
      return false;
    }
    throw e;
  }
}

export async function signOut() {
  try {
    await api('POST', '/auth/logout', undefined, { session: false });
  } catch (e) {
    // The session is gone either way for this page.
  }
  session.user = null;
  session.permissions = [];
  navigate('/login', { replace: true });
}

function layout(active) {
  const main = h('main', { id: 'main', tabindex: '-1' });
  const name = session.user && (session.user.name || session.user.username || session.user.email);
  mount(root,
    h('a', { class: 'skip', href: '#main' }, 'Skip to content'),
    h('header', { class: 'top' },
      h('a', { class: 'brand', href: '/projects' }, 'Signalbox'),
      h('nav', { 'aria-label': 'Main' },
        h('ul', null, nav.filter(([, , shown]) => !shown || shown()).map(([href, text]) => h('li', null,
          h('a', { href, 'aria-current': active === href ? 'page' : null }, text))))),
      h('div', { class: 'who' },
        h('a', { class: 'user', href: '/profile', title: 'Your profile', 'aria-current': active === '/profile' ? 'page' : null }, name || 'Profile'),
        h('button', { type: 'button', class: 'link', onclick: signOut }, 'Sign out'))),
    main,
    h('div', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' }));
  return main;
}

let renderSeq = 0;

async function render() {
  const seq = ++renderSeq;
  const path = location.pathname.replace(/\/+$/, '') || '/';
  if (path === '/') {
    navigate(session.user ? '/projects' : '/login', { replace: true });
    return;
  }
  const route = routes.find((r) => r.re.test(path));
  if (!route) {
    mount(layout(''), h('h1', null, 'Page not found'), h('p', null, h('a', { href: '/projects' }, 'Go to the projects')));
    return;
  }
  if (!route.open && !session.user) {
    if (!(await loadSession())) {
      navigate(loginPath(false), { replace: true });
      return;
    }
  }
  const params = path.match(route.re).slice(1).map(decodeURIComponent);
  const mod = await import(`./pages/${route.page}.js`);
  if (seq !== renderSeq) return;
  let main;
  if (route.open) {
    main = h('main', { id: 'main', class: 'bare', tabindex: '-1' });
    mount(root, main, h('div', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' }));
  } else {
    main = layout([...nav.map(([href]) => href), '/profile'].find((href) => path === href || path.startsWith(`${href}/`)) || '');
  }
  try {
    await mod.render(main, params, new URLSearchParams(location.search));
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return;
    mount(main, h('h1', null, 'Something went wrong'), h('p', { class: 'alert', role: 'alert' }, e.message));
  }
  if (seq !== renderSeq) return;
  const heading = main.querySelector('h1');
  if (heading) document.title = `${heading.textContent} · Signalbox`;
  if (document.activeElement === document.body || !main.contains(document.activeElement)) {
    if (!main.querySelector('[autofocus]')) main.focus({ preventScroll: true });
  }
}

// Links to pages of the app are followed without reloading.
document.addEventListener('click', (e) => {
  const a = e.target.closest && e.target.closest('a[href]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  if (a.target || a.hasAttribute('download')) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/') || url.pathname.startsWith('/docs/') ||
      url.pathname.startsWith('/auth/')) return;
  if (url.hash && url.pathname === location.pathname) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
});

window.addEventListener('popstate', render);
export { status };
render();
