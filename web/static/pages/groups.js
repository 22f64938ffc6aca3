// Groups (Admins only): list with members, create and edit (name,
// description, SSO group names, root role, members), delete. A group's
// project roles are given on the project's access settings.
import { h, mount, field, select, alertBox, setAlert, showError, modal, confirm, status } from '../dom.js';
import { api } from '../api.js';

const roleNames = { 1: 'Admin', 2: 'Editor', 3: 'Viewer' };

export async function render(main) {
  const alert = alertBox();
  const body = h('div');
  let people = []; // who can be a member, as of the last load
  const load = async () => {
    const [data, users] = await Promise.all([api('GET', '/api/admin/groups'), api('GET', '/api/admin/user-admin')]);
    const groups = data.groups || [];
    people = users.users || [];
    mount(body, groups.length ? h('table', { class: 'list' },
      h('caption', { class: 'sr-only' }, 'Groups'),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Members'), h('th', { scope: 'col' }, 'Root role'),
        h('th', { scope: 'col' }, 'SSO groups'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, groups.map((g) => h('tr', { 'data-group': g.name },
        h('th', { scope: 'row' }, g.name, g.description ? h('span', { class: 'desc' }, g.description) : null),
        h('td', null, (g.users || []).map((m) => m.user.name || m.user.username || m.user.email).join(', ') || '—'),
        h('td', null, g.rootRole ? roleNames[g.rootRole] || String(g.rootRole) : '—'),
        h('td', null, (g.mappingsSSO || []).join(', ') || '—'),
        h('td', { class: 'row-actions' },
          h('button', { type: 'button', 'aria-label': `Edit group ${g.name}`, onclick: async () => { if (await groupForm(g, people)) await load(); } }, 'Edit'),
          h('button', { type: 'button', class: 'danger', 'aria-label': `Delete group ${g.name}`, onclick: async () => {
            setAlert(alert, '');
            if (!await confirm('Delete group', `Delete the group ${g.name}? Its members lose what it gave them.`, 'Delete', { danger: true })) return;
            try {
              await api('DELETE', `/api/admin/groups/${g.id}`);
              status(`${g.name} deleted`);
              await load();
            } catch (err) {
              setAlert(alert, err.message);
            }
          } }, 'Delete')))))) : h('p', { class: 'muted' }, 'No groups yet.'));
  };
  const loaded = load();
  // The button works as soon as it shows: a click before the list came
  // waits for it (and for who can be a member).
  const newButton = h('button', { type: 'button', class: 'primary', onclick: async () => {
    try {
      await loaded;
    } catch {
      return; // the page says why it has no list
    }
    if (await groupForm(null, people)) await load();
  } }, 'New group');
  mount(main,
    h('div', { class: 'page-head' }, h('h1', null, 'Groups'), newButton),
    h('p', { class: 'lead' }, 'A group gives its members a root role and, through project access, project roles. Members can also join through the groups their SAML identity provider names.'),
    alert, body);
  await loaded;
}

// groupForm creates a group (g null) or edits g; it resolves true when
// saved.
function groupForm(g, people) {
  return modal(g ? `Edit group ${g.name}` : 'New group', (close) => {
    const name = field('Name', h('input', { name: 'name', value: g ? g.name : '', autocomplete: 'off' }), { name: 'name' });
    const desc = field('Description', h('input', { name: 'description', value: g ? g.description || '' : '', autocomplete: 'off' }), { name: 'description' });
    const sso = field('SSO groups', h('input', { name: 'mappingsSSO', value: g ? (g.mappingsSSO || []).join(', ') : '', autocomplete: 'off' }),
      { name: 'mappingsSSO', hint: 'Comma-separated group names sent by the identity provider; their members join this group when they sign in.' });
    const role = field('Root role', select([['', 'None'], ['1', 'Admin'], ['2', 'Editor'], ['3', 'Viewer']], g && g.rootRole ? String(g.rootRole) : '', { name: 'rootRole' }), { name: 'rootRole' });
    const members = new Set(g ? (g.users || []).map((m) => m.user.id) : []);
    const boxes = people.map((u) => h('label', { class: 'check' },
      h('input', { type: 'checkbox', name: `member-${u.id}`, value: String(u.id), checked: members.has(u.id) }),
      ` ${u.name || u.username || u.email}`));
    const fields = [name, desc, sso, role];
    const alert = alertBox();
    const form = h('form', { novalidate: true }, fields.map((f) => f.el),
      h('fieldset', { class: 'projects' }, h('legend', null, 'Members'), boxes.length ? boxes : h('p', { class: 'muted' }, 'No users.')),
      alert,
      h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, g ? 'Save' : 'Create group'),
        h('button', { type: 'button', onclick: () => close(false) }, 'Cancel')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = {
        name: name.control.value.trim(),
        description: desc.control.value,
        mappingsSSO: sso.control.value.split(',').map((s) => s.trim()).filter(Boolean),
        rootRole: role.control.value ? Number(role.control.value) : null,
        users: boxes.map((b) => b.firstChild).filter((c) => c.checked).map((c) => ({ user: { id: Number(c.value) } })),
      };
      try {
        if (g) await api('PUT', `/api/admin/groups/${g.id}`, body);
        else await api('POST', '/api/admin/groups', body);
        status(g ? 'Group saved' : 'Group created');
        close(true);
      } catch (err) {
        showError(err, fields, alert);
      }
    });
    return form;
  }, { wide: true });
}
