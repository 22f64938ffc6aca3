// Users (Admins only): list with root roles, create with a root role and an
// initial password, edit, delete.
import { h, mount, field, select, alertBox, setAlert, showError, modal, confirm, status, fmtDate } from '../dom.js';
import { api } from '../api.js';

export async function render(main) {
  const alert = alertBox();
  const body = h('div');
  let roles = [];
  const load = async () => {
    const data = await api('GET', '/api/admin/user-admin');
    roles = data.rootRoles || [];
    const roleName = (id) => (roles.find((r) => r.id === id) || {}).name || String(id);
    const users = data.users || [];
    mount(body, h('table', { class: 'list' },
      h('caption', { class: 'sr-only' }, 'Users'),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Username'), h('th', { scope: 'col' }, 'E-mail'),
        h('th', { scope: 'col' }, 'Root role'), h('th', { scope: 'col' }, 'Last sign-in'),
        h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, users.map((u) => {
        const label = u.name || u.username || u.email;
        return h('tr', { 'data-user': u.username || u.email },
          h('th', { scope: 'row' }, u.name || '—'),
          h('td', null, u.username || '—'),
          h('td', null, u.email || '—'),
          h('td', null, roleName(u.rootRole)),
          h('td', null, u.seenAt ? fmtDate(u.seenAt) : 'never'),
          h('td', { class: 'row-actions' },
            h('button', { type: 'button', 'aria-label': `Edit user ${label}`, onclick: async () => { if (await userForm(u, roles)) await load(); } }, 'Edit'),
            h('button', { type: 'button', class: 'danger', 'aria-label': `Delete user ${label}`, onclick: async () => {
              setAlert(alert, '');
              if (!await confirm('Delete user', `Delete ${label}? Their sessions and personal tokens end at once.`, 'Delete', { danger: true })) return;
              try {
                await api('DELETE', `/api/admin/user-admin/${u.id}`);
                status(`${label} deleted`);
                await load();
              } catch (err) {
                setAlert(alert, err.message);
              }
            } }, 'Delete')));
      }))));
  };
  const loaded = load();
  mount(main,
    h('div', { class: 'page-head' }, h('h1', null, 'Users'),
      h('button', { type: 'button', class: 'primary', onclick: async () => {
        try {
          await loaded; // the roles the form offers come with the list
        } catch {
          return; // the page says why it has no list
        }
        if (await userForm(null, roles)) await load();
      } }, 'New user')),
    h('p', { class: 'lead' }, 'A root role says what a user may do everywhere: Admins everything, Editors create and change flags, Viewers only read. Project roles add rights in one project.'),
    alert, body);
  await loaded;
}

// userForm creates a user (u null) or edits u; it resolves true when saved.
function userForm(u, roles) {
  return modal(u ? `Edit ${u.name || u.username || u.email}` : 'New user', (close) => {
    const name = field('Name', h('input', { name: 'name', value: u ? u.name || '' : '', autocomplete: 'off' }), { name: 'name' });
    const username = field('Username', h('input', { name: 'username', value: u ? u.username || '' : '', autocomplete: 'off', disabled: !!u }), { name: 'username' });
    const email = field('E-mail', h('input', { name: 'email', type: 'email', value: u ? u.email || '' : '', autocomplete: 'off' }), { name: 'email' });
    const role = field('Root role', select(roles.map((r) => [String(r.id), r.name]), String(u ? u.rootRole : (roles.find((r) => r.name === 'Viewer') || roles[0] || {}).id), { name: 'rootRole' }), { name: 'rootRole' });
    const password = u ? null : field('Initial password', h('input', { name: 'password', type: 'password', autocomplete: 'new-password' }),
      { name: 'password', hint: 'At least 10 characters with a lower-case and an upper-case letter, a digit and a symbol. Leave empty for a user who signs in by SAML.' });
    const fields = [name, username, email, role, password].filter(Boolean);
    const alert = alertBox();
    const form = h('form', { novalidate: true }, fields.map((f) => f.el), alert,
      h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, u ? 'Save' : 'Create user'),
        h('button', { type: 'button', onclick: () => close(false) }, 'Cancel')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = { name: name.control.value.trim(), email: email.control.value.trim(), rootRole: Number(role.control.value) };
      try {
        if (u) {
          await api('PUT', `/api/admin/user-admin/${u.id}`, body);
        } else {
          if (username.control.value.trim()) body.username = username.control.value.trim();
          if (password.control.value) body.password = password.control.value;
          await api('POST', '/api/admin/user-admin', body);
        }
        status(u ? 'User saved' : 'User created');
        close(true);
      } catch (err) {
        showError(err, fields, alert);
      }
    });
    return form;
  });
}
