// Project access: the users and groups holding a project role (Owner,
// Member) in one project; Admins and the project's Owners add them, change
// their role and remove them. The API checks every change itself.
import { h, mount, field, select, alertBox, setAlert, showError, modal, confirm, status, fmtDate, debounce } from '../dom.js';
import { api, enc } from '../api.js';
import { can, projectCan } from '../app.js';

export async function render(main, [projectId]) {
  const base = `/api/admin/projects/${enc(projectId)}`;
  const alert = alertBox();
  const body = h('div');
  // Shown once the access list says the user may manage it.
  const addButton = h('button', { type: 'button', class: 'primary', hidden: true }, 'Add access');
  const project = await api('GET', base);
  mount(main,
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' },
      h('a', { href: '/projects' }, 'Projects'), ' / ', h('a', { href: `/projects/${enc(projectId)}` }, project.name || projectId)),
    h('div', { class: 'page-head' }, h('h1', null, `Access to ${project.name || projectId}`), addButton),
    h('p', { class: 'lead' }, 'Owners manage the project, its settings and who has access; Members work on its flags. A group\'s role applies to each of its members.'),
    alert, body);

  const load = async () => {
    const access = await api('GET', `${base}/access`);
    const roles = access.roles || [];
    // Only hides controls: Admins, and Owners of this project (themselves
    // or through a group), may manage access.
    const mayManage = (await projectCan(projectId))('PROJECT_USER_ACCESS_WRITE');
    addButton.hidden = !mayManage;
    addButton.onclick = async () => { if (await addForm(base, roles, access)) await load(); };
    const rows = [
      ...(access.users || []).map((u) => ({ kind: 'user', id: u.id, name: u.name || u.username || u.email || `User ${u.id}`, detail: u.email || u.username || '', roles: u.roles || [u.roleId], addedAt: u.addedAt })),
      ...(access.groups || []).map((g) => ({ kind: 'group', id: g.id, name: g.name, detail: `${(g.users || []).length} members`, roles: g.roles || [g.roleId], addedAt: g.addedAt })),
    ];
    if (!rows.length) {
      mount(body, h('p', { class: 'muted' }, 'Nobody holds a role in this project yet; Admins and Editors still work on it through their root role.'));
      return;
    }
    mount(body, h('table', { class: 'list' },
      h('caption', { class: 'sr-only' }, 'Users and groups with access'),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Kind'), h('th', { scope: 'col' }, 'Role'),
        h('th', { scope: 'col' }, 'Added'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, rows.map((row) => h('tr', { 'data-access': `${row.kind}:${row.name}` },
        h('th', { scope: 'row' }, row.name, row.detail ? h('span', { class: 'desc' }, row.detail) : null),
        h('td', null, row.kind === 'user' ? 'User' : 'Group'),
        h('td', null, mayManage ? roleSelect(row, roles, async (roleId) => {
          setAlert(alert, '');
          try {
            await api('PUT', `${base}/${row.kind}s/${row.id}/roles`, { roles: [roleId] });
            status(`${row.name} is now ${roleName(roles, roleId)}`);
            await load();
          } catch (err) {
            setAlert(alert, err.message);
            await load();
          }
        }) : row.roles.map((r) => roleName(roles, r)).join(', ')),
        h('td', null, fmtDate(row.addedAt)),
        h('td', { class: 'row-actions' }, mayManage ? h('button', {
          type: 'button', class: 'danger', 'aria-label': `Remove ${row.name}`, onclick: async () => {
            setAlert(alert, '');
            if (!await confirm('Remove access', `Remove ${row.name} from the project? ${row.kind === 'group' ? 'Its members lose' : 'They lose'} the project role.`, 'Remove', { danger: true })) return;
            try {
              await api('DELETE', `${base}/${row.kind}s/${row.id}/roles`);
              status(`${row.name} removed`);
              await load();
            } catch (err) {
              setAlert(alert, err.message);
            }
          },
        }, 'Remove') : null))))));
  };
  await load();
}

function roleName(roles, id) {
  return (roles.find((r) => r.id === id) || {}).name || String(id);
}

// roleSelect picks the one project role of a row; onChange gets its id.
function roleSelect(row, roles, onChange) {
  const sel = select(roles.map((r) => [String(r.id), r.name]), String(row.roles[0]),
    { 'aria-label': `Role of ${row.name}`, name: `role-${row.kind}-${row.id}` });
  sel.addEventListener('change', () => onChange(Number(sel.value)));
  return sel;
}

// addForm grants a project role to a user or a group; it resolves true
// when saved.
async function addForm(base, roles, access) {
  const admin = can('ADMIN');
  const [people, groups] = await Promise.all([admin ? listUsers() : [], api('GET', '/api/admin/groups').then((d) => d.groups || [])]);
  const held = new Set([...(access.users || []).map((u) => `user:${u.id}`), ...(access.groups || []).map((g) => `group:${g.id}`)]);
  const options = (users) => [
    ['', 'Choose…'],
    ...users.filter((u) => !held.has(`user:${u.id}`)).map((u) => [`user:${u.id}`, `User: ${u.name || u.username || u.email}`]),
    ...groups.filter((g) => !held.has(`group:${g.id}`)).map((g) => [`group:${g.id}`, `Group: ${g.name}`]),
  ];
  return modal('Add access', (close) => {
    const who = field('User or group', select(options(people), '', { name: 'subject' }), { name: 'subject' });
    // Only Admins may list every user; others find them by name.
    const find = admin ? null : field('Find users', h('input', { type: 'search', name: 'find', autocomplete: 'off' }),
      { name: 'find', hint: 'Type two or more letters of a name, username or e-mail; matching users join the list below.' });
    if (find) {
      find.control.addEventListener('input', debounce(async () => {
        const q = find.control.value.trim();
        const found = q.length < 2 ? [] : await api('GET', `/api/admin/user-admin/search?q=${enc(q)}`).catch(() => []);
        const keep = who.control.value;
        mount(who.control, options(found).map(([v, t]) => h('option', { value: v, selected: v === keep }, t)));
      }, 150));
    }
    const member = roles.find((r) => r.name === 'Member') || roles[0] || {};
    const role = field('Role', select(roles.map((r) => [String(r.id), r.name]), String(member.id), { name: 'role' }), { name: 'roles' });
    const fields = [who, role];
    const alert = alertBox();
    const form = h('form', { novalidate: true }, find ? find.el : null, fields.map((f) => f.el), alert,
      h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, 'Add'),
        h('button', { type: 'button', onclick: () => close(false) }, 'Cancel')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const [kind, id] = who.control.value.split(':');
      if (!id) {
        who.setError('Choose a user or a group.');
        who.control.focus();
        return;
      }
      const ref = [{ id: Number(id) }];
      try {
        await api('POST', `${base}/access`, { roles: [Number(role.control.value)], users: kind === 'user' ? ref : [], groups: kind === 'group' ? ref : [] });
        status('Access added');
        close(true);
      } catch (err) {
        showError(err, fields, alert);
      }
    });
    return form;
  });
}

// listUsers lists every user (Admins only).
async function listUsers() {
  const data = await api('GET', '/api/admin/user-admin');
  return data.users || [];
}
