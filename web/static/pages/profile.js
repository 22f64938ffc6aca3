// The signed-in user's profile: who they are, their personal access
// tokens (the secret shown once) and a password change.
import { h, mount, field, alertBox, setAlert, showError, confirm, status, fmtDate } from '../dom.js';
import { api } from '../api.js';
import { session } from '../app.js';
import { secretShown } from './tokens.js';

export async function render(main) {
  const me = session.user || {};
  const patAlert = alertBox();
  const patList = h('div');
  const patResult = h('div');
  const loadPATs = async () => {
    const data = await api('GET', '/api/admin/user/tokens');
    const pats = data.pats || [];
    mount(patList, pats.length ? h('table', { class: 'list' },
      h('caption', { class: 'sr-only' }, 'Personal access tokens'),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Description'), h('th', { scope: 'col' }, 'Expires'),
        h('th', { scope: 'col' }, 'Last seen'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, pats.map((p) => h('tr', { 'data-pat': p.id },
        h('th', { scope: 'row' }, p.description),
        h('td', null, p.expiresAt ? fmtDate(p.expiresAt) : 'never'),
        h('td', null, p.seenAt ? fmtDate(p.seenAt) : 'never'),
        h('td', { class: 'row-actions' }, h('button', { type: 'button', class: 'danger', 'aria-label': `Delete personal token ${p.description}`, onclick: async () => {
          if (!await confirm('Delete token', `Delete the personal access token ${p.description}?`, 'Delete', { danger: true })) return;
          try {
            await api('DELETE', `/api/admin/user/tokens/${p.id}`);
            status('Token deleted');
            mount(patResult);
            await loadPATs();
          } catch (err) {
            setAlert(patAlert, err.message);
          }
        } }, 'Delete')))))) : h('p', { class: 'muted' }, 'No personal access tokens.'));
  };

  const desc = field('Description', h('input', { name: 'description', autocomplete: 'off' }), { name: 'description' });
  const expires = field('Expires', h('input', { name: 'expiresAt', type: 'date' }), { name: 'expiresAt', hint: 'Leave empty for 30 days from now.' });
  const patForm = h('form', { class: 'inline-form', novalidate: true }, desc.el, expires.el,
    h('button', { type: 'submit', class: 'primary' }, 'Create personal token'));
  patForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    setAlert(patAlert, '');
    const day = expires.control.value;
    const at = day ? new Date(`${day}T23:59:59Z`) : new Date(Date.now() + 30 * 24 * 3600 * 1000);
    try {
      const pat = await api('POST', '/api/admin/user/tokens', { description: desc.control.value.trim(), expiresAt: at.toISOString() });
      secretShown(patResult, pat.secret, 'Copy this token now: it is not shown again. It acts as you on the admin API.');
      desc.control.value = '';
      await loadPATs();
    } catch (err) {
      showError(err, [desc, expires], patAlert);
    }
  });

  const oldPw = field('Current password', h('input', { name: 'oldPassword', type: 'password', autocomplete: 'current-password' }), { name: 'oldPassword' });
  const newPw = field('New password', h('input', { name: 'password', type: 'password', autocomplete: 'new-password' }), { name: 'password' });
  const confirmPw = field('New password again', h('input', { name: 'confirmPassword', type: 'password', autocomplete: 'new-password' }), { name: 'confirmPassword' });
  const pwAlert = alertBox();
  const pwDone = h('p', { class: 'done', role: 'status' });
  const pwForm = h('form', { class: 'password-form', novalidate: true }, oldPw.el, newPw.el, confirmPw.el, pwAlert, pwDone,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Change password')));
  pwForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    setAlert(pwAlert, '');
    pwDone.textContent = '';
    try {
      await api('POST', '/api/admin/user/change-password', {
        oldPassword: oldPw.control.value, password: newPw.control.value, confirmPassword: confirmPw.control.value,
      });
      [oldPw, newPw, confirmPw].forEach((f) => { f.control.value = ''; f.setError(''); });
      pwDone.textContent = 'Your password was changed.';
    } catch (err) {
      showError(err, [oldPw, newPw, confirmPw], pwAlert);
    }
  });

  mount(main,
    h('h1', null, 'Your profile'),
    h('dl', { class: 'meta' },
      h('dt', null, 'Name'), h('dd', null, me.name || '—'),
      h('dt', null, 'Username'), h('dd', null, me.username || '—'),
      h('dt', null, 'E-mail'), h('dd', null, me.email || '—')),
    h('section', { class: 'panel', 'aria-labelledby': 'pats' }, h('h2', { id: 'pats' }, 'Personal access tokens'),
      h('p', { class: 'muted' }, 'A personal access token acts as you on the admin API, with your permissions.'),
      patForm, patAlert, patResult, patList),
    h('section', { class: 'panel', 'aria-labelledby': 'pw' }, h('h2', { id: 'pw' }, 'Password'), pwForm));
  await loadPATs();
}
