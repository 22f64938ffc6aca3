// The sign-in page: username (or e-mail) and password, and SAML when on.
import { h, mount, field, alertBox, setAlert, showError } from '../dom.js';
import { api } from '../api.js';
import { navigate, loadSession } from '../app.js';

export async function render(main, params, query) {
  // Someone already signed in goes on.
  const next = safeNext(query.get('next'));
  if (!query.get('expired') && await loadSession()) {
    navigate(next, { replace: true });
    return;
  }
  const user = field('Username or e-mail', h('input', { name: 'username', autocomplete: 'username', required: true, autofocus: true }), { name: 'username' });
  const pass = field('Password', h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true }), { name: 'password' });
  const alert = alertBox();
  const notice = h('p', { class: 'notice', role: 'status' });
  if (query.get('expired')) notice.textContent = 'Your session has expired; sign in again';
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h('form', { class: 'login', novalidate: true }, user.el, pass.el, alert, h('div', { class: 'actions' }, button));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    setAlert(alert, '');
    user.setError('');
    pass.setError('');
    if (!user.control.value.trim()) {
      user.setError('Enter your username or e-mail address');
      user.control.focus();
      return;
    }
    if (!pass.control.value) {
      pass.setError('Enter your password');
      pass.control.focus();
      return;
    }
    button.disabled = true;
    try {
      await api('POST', '/auth/simple/login', { username: user.control.value.trim(), password: pass.control.value }, { session: false });
      await loadSession();
      navigate(next, { replace: true });
    } catch (err) {
      // Wrong password (401) and too many attempts (429) come with the
      // API's message; neither names a field.
      if (err.status === 401 || err.status === 429) {
        setAlert(alert, err.message);
        pass.control.value = '';
        pass.control.focus();
      } else {
        showError(err, [user, pass], alert);
      }
    } finally {
      button.disabled = false;
    }
  });
  const saml = h('div', { class: 'saml' });
  mount(main, h('div', { class: 'login-box' },
    h('h1', null, 'Sign in to Signalbox'), notice, form, saml));
  try {
    const providers = await api('GET', '/auth/providers', undefined, { session: false });
    if (providers && providers.saml) {
      mount(saml, h('p', { class: 'or' }, 'or'), h('a', { class: 'button', href: '/auth/saml/login' }, 'Sign in with SAML'));
    }
  } catch (e) {
    // Without the list, password sign-in still works.
  }
}

// safeNext keeps the return path on this site.
function safeNext(next) {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/login')) return '/projects';
  return next;
}
