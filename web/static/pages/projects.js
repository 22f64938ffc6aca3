// Projects: list with flag counts and health, create, edit, delete.
import { h, mount, field, alertBox, setAlert, showError, modal, confirm, status } from '../dom.js';
import { api, enc } from '../api.js';
import { can, navigate } from '../app.js';

export async function render(main) {
  const alert = alertBox();
  const body = h('div');
  const load = async () => {
    const data = await api('GET', '/api/admin/projects');
    const projects = data.projects || [];
    if (!projects.length) {
      mount(body, h('p', null, 'No projects yet.'));
      return;
    }
    mount(body, h('table', { class: 'list' },
      h('caption', { class: 'sr-only' }, 'Projects'),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'ID'), h('th', { scope: 'col', class: 'num' }, 'Flags'),
        h('th', { scope: 'col', class: 'num' }, h('abbr', { title: 'Share of active flags that are neither stale nor past their expected lifetime' }, 'Health')),
        h('th', { scope: 'col', class: 'num' }, 'Members'), h('th', { scope: 'col' }, 'Description'),
        h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, projects.map((p) => h('tr', { 'data-project': p.id },
        h('td', null, h('a', { href: `/projects/${enc(p.id)}` }, p.name)),
        h('td', null, h('code', null, p.id)),
        h('td', { class: 'num' }, String(p.featureCount ?? 0)),
        h('td', { class: 'num health', 'data-health': healthBand(p.health) }, `${p.health ?? 100} %`),
        h('td', { class: 'num' }, String(p.memberCount ?? 0)),
        h('td', null, p.description || ''),
        h('td', { class: 'row-actions' },
          can('UPDATE_PROJECT') && h('button', { type: 'button', onclick: () => edit(p) , 'aria-label': `Edit project ${p.name}` }, 'Edit'),
          can('DELETE_PROJECT') && h('button', { type: 'button', class: 'danger', onclick: () => remove(p), 'aria-label': `Delete project ${p.name}` }, 'Delete')))))));
  };

  const edit = async (p) => {
    const saved = await projectForm(p);
    if (saved) {
      status(`Project ${saved.name} saved`);
      await load();
    }
  };
  const remove = async (p) => {
    setAlert(alert, '');
    if (!await confirm('Delete project', `Delete the project ${p.name}? This cannot be undone.`, 'Delete', { danger: true })) return;
    try {
      await api('DELETE', `/api/admin/projects/${enc(p.id)}`);
      status(`Project ${p.name} deleted`);
      await load();
    } catch (err) {
      setAlert(alert, err.message);
    }
  };

  mount(main,
    h('div', { class: 'page-head' },
      h('h1', null, 'Projects'),
      can('CREATE_PROJECT') && h('button', { type: 'button', class: 'primary', onclick: async () => {
        const p = await projectForm(null);
        if (p) navigate(`/projects/${enc(p.id)}`);
      } }, 'New project')),
    alert, body);
  await load();
}

// healthBand names how healthy a project is, for styling: Unleash's UI
// marks under 50 % as poor and under 75 % as fair.
function healthBand(health) {
  const v = health ?? 100;
  return v < 50 ? 'poor' : v < 75 ? 'fair' : 'good';
}

// projectForm creates a project (p null) or edits p; it resolves with the
// saved project, or undefined when cancelled.
function projectForm(p) {
  return modal(p ? `Edit project ${p.name}` : 'New project', (close) => {
    const id = field('ID', h('input', { name: 'id', value: p ? p.id : '', disabled: !!p, required: true, autocomplete: 'off' }),
      { name: 'id', hint: 'Used in API paths and tokens; it cannot be changed later.' });
    const name = field('Name', h('input', { name: 'name', value: p ? p.name : '', required: true, autocomplete: 'off' }), { name: 'name' });
    const desc = field('Description', h('textarea', { name: 'description', rows: 3 }, p ? (p.description || '') : ''), { name: 'description' });
    const alert = alertBox();
    const fields = [id, name, desc];
    const form = h('form', { novalidate: true }, id.el, name.el, desc.el, alert,
      h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, p ? 'Save' : 'Create project'),
        h('button', { type: 'button', onclick: () => close() }, 'Cancel')));
    if (!p) {
      // Suggest an id from the name until the id is edited.
      let touched = false;
      id.control.addEventListener('input', () => { touched = true; });
      name.control.addEventListener('input', () => {
        if (!touched) id.control.value = name.control.value.trim().toLowerCase().replace(/[^a-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '');
      });
    }
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = { name: name.control.value.trim(), description: desc.control.value };
      try {
        let saved;
        if (p) {
          await api('PUT', `/api/admin/projects/${enc(p.id)}`, body);
          saved = { ...p, ...body };
        } else {
          saved = await api('POST', '/api/admin/projects', { id: id.control.value.trim(), ...body });
        }
        close(saved);
      } catch (err) {
        showError(err, fields, alert);
      }
    });
    return form;
  });
}
