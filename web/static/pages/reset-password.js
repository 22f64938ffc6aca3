// The page of a password reset link (/reset-password?token=…): it checks
// the link, then sets the new password with it, once.
import { h, mount, field, alertBox, setAlert, showError } from '../dom.js';
import { api } from '../api.js';

export async function render(main, params, query) {
  const token = query.get('token') || '';
  let who;
  try {
    who = await api('GET', `/auth/reset/validate?token=${encodeURIComponent(token)}`, undefined, { session: false });
  } catch (err) {
    mount(main, h('div', { class: 'login-box' },
      h('h1', null, 'This link does not work'),
      h('p', { class: 'alert', role: 'alert' }, err.message),
      h('p', null, h('a', { href: '/login' }, 'Go to the sign-in page'))));
    return;
  }
  const pass = field('New password', h('input', { type: 'password', name: 'password', autocomplete: 'new-password', required: true, autofocus: true }),
    { name: 'password', hint: 'At least 10 characters, with a lower-case and an upper-case letter, a digit and a symbol, and no character three times in a row.' });
  const again = field('The same password again', h('input', { type: 'password', name: 'confirm', autocomplete: 'new-password', required: true }), { name: 'confirm' });
  const alert = alertBox();
  const button = h('button', { type: 'submit', class: 'primary' }, 'Set password');
  const form = h('form', { class: 'login', novalidate: true }, pass.el, again.el, alert, h('div', { class: 'actions' }, button));
  const box = h('div', { class: 'login-box' },
    h('h1', null, 'Set a new password'),
    h('p', null, `For ${who.name || who.email}${who.name && who.email ? ` (${who.email})` : ''}.`), form);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    setAlert(alert, '');
    pass.setError('');
    again.setError('');
    if (!pass.control.value) {
      pass.setError('Enter a new password');
      pass.control.focus();
      return;
    }
    if (again.control.value !== pass.control.value) {
      again.setError('The two passwords differ');
      again.control.focus();
      return;
    }
    button.disabled = true;
    try {
      await api('POST', '/auth/reset/password', { token, password: pass.control.value }, { session: false });
      mount(box, h('h1', null, 'Your password is set'),
        h('p', { role: 'status' }, 'You were signed out everywhere. Sign in with your new password.'),
        h('p', null, h('a', { class: 'button', href: '/login' }, 'Sign in')));
    } catch (err) {
      if (err.status === 401 || err.status === 429) setAlert(alert, err.message);
      else showError(err, [pass], alert);
    } finally {
      button.disabled = false;
    }
  });
  mount(main, box);
}
