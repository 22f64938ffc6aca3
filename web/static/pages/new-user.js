// The page of an invite link (/new-user?invite=…): it checks the link, then
// creates the person's account with it.
import { h, mount, field, alertBox, setAlert, showError } from '../dom.js';
import { api } from '../api.js';

export async function render(main, params, query) {
  const invite = query.get('invite') || '';
  const path = `/invite/${encodeURIComponent(invite)}`;
  try {
    if (!invite) throw new Error('The link has no invitation in it.');
    await api('GET', `${path}/validate`, undefined, { session: false });
  } catch (err) {
    mount(main, h('div', { class: 'login-box' },
      h('h1', null, 'This invite link does not work'),
      h('p', { class: 'alert', role: 'alert' }, err.message),
      h('p', null, h('a', { href: '/login' }, 'Go to the sign-in page'))));
    return;
  }
  const name = field('Your name', h('input', { name: 'name', autocomplete: 'name', required: true, autofocus: true }), { name: 'name' });
  const email = field('E-mail', h('input', { type: 'email', name: 'email', autocomplete: 'email', required: true }), { name: 'email' });
  const pass = field('Password', h('input', { type: 'password', name: 'password', autocomplete: 'new-password', required: true }),
    { name: 'password', hint: 'At least 10 characters, with a lower-case and an upper-case letter, a digit and a symbol, and no character three times in a row.' });
  const fields = [name, email, pass];
  const alert = alertBox();
  const button = h('button', { type: 'submit', class: 'primary' }, 'Create account');
  const form = h('form', { class: 'login', novalidate: true }, name.el, email.el, pass.el, alert, h('div', { class: 'actions' }, button));
  const box = h('div', { class: 'login-box' }, h('h1', null, 'Join Signalbox'), form);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    setAlert(alert, '');
    for (const f of fields) f.setError('');
    const missing = fields.find((f) => !f.control.value.trim());
    if (missing) {
      missing.setError('This is required');
      missing.control.focus();
      return;
    }
    button.disabled = true;
    try {
      const user = await api('POST', `${path}/signup`,
        { name: name.control.value.trim(), email: email.control.value.trim(), password: pass.control.value }, { session: false });
      mount(box, h('h1', null, 'Your account is ready'),
        h('p', { role: 'status' }, `Sign in as ${user.email} with the password you chose.`),
        h('p', null, h('a', { class: 'button', href: '/login' }, 'Sign in')));
    } catch (err) {
      if (err.status === 429) setAlert(alert, err.message);
      else showError(err, fields, alert);
    } finally {
      button.disabled = false;
    }
  });
  mount(main, box);
}
