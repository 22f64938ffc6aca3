// Roles: the root roles (given to users and groups for the whole
// instance) and the project roles (given in one project on its access
// page), each with what it lets its holders do.
import { h, mount } from '../dom.js';
import { api } from '../api.js';

const kinds = [
  ['root', 'Root roles', 'A root role applies everywhere. Every user has one; a group can give its members a stronger one.'],
  ['project', 'Project roles', 'A project role applies in the projects where a user, or a group they belong to, holds it (see a project\'s Access page).'],
];

export async function render(main) {
  const data = await api('GET', '/api/admin/roles');
  const roles = data.roles || [];
  mount(main,
    h('div', { class: 'page-head' }, h('h1', null, 'Roles')),
    h('p', { class: 'lead' }, 'What each role lets its holders do. The server checks these permissions on every request.'),
    kinds.map(([type, title, text]) => {
      const list = roles.filter((r) => r.type === type);
      if (!list.length) return null;
      const headId = `roles-${type}`;
      return h('section', { class: 'roles', 'aria-labelledby': headId },
        h('h2', { id: headId }, title),
        h('p', { class: 'muted' }, text),
        list.map((r) => h('article', { class: 'role-card', 'data-role': r.name },
          h('h3', null, r.name),
          r.description ? h('p', null, r.description) : null,
          (r.permissions || []).length
            ? h('ul', { class: 'permissions', 'aria-label': `What ${r.name} may do` },
              r.permissions.map((p) => h('li', { 'data-permission': p.name }, p.displayName, ' ', h('code', null, p.name))))
            : h('p', { class: 'muted' }, 'Nothing.'))));
    }));
}
