// A project's change requests in tabs by state (open, scheduled, applied,
// rejected or cancelled), and the project's setting of where they are
// required and how many approvals they need.
import { h, mount, checkbox, alertBox, setAlert, status, fmtDate } from '../dom.js';
import { api, enc, cached } from '../api.js';
import { projectCan } from '../app.js';

const tabs = [
  ['open', 'Open', ['Draft', 'In review', 'Approved']],
  ['scheduled', 'Scheduled', ['Scheduled']],
  ['applied', 'Applied', ['Applied']],
  ['closed', 'Rejected or cancelled', ['Rejected', 'Cancelled']],
];

export async function render(main, [projectId], query) {
  const path = `/api/admin/projects/${enc(projectId)}`;
  const [project, list, config, envs, can] = await Promise.all([
    api('GET', path),
    api('GET', `${path}/change-requests`),
    api('GET', `${path}/change-requests/config`),
    cached('/api/admin/environments'),
    projectCan(projectId),
  ]);
  const tab = tabs.find(([id]) => id === query.get('tab')) || tabs[0];
  const here = `/projects/${enc(projectId)}/change-requests`;
  const rows = list.filter((cr) => tab[2].includes(cr.state));
  const order = new Map((envs.environments || []).map((e) => [e.name, e.sortOrder ?? 0]));
  const envOrder = (a, b) => (order.get(a.environment) ?? 0) - (order.get(b.environment) ?? 0) || a.environment.localeCompare(b.environment);

  mount(main,
    h('p', { class: 'crumbs' }, h('a', { href: '/projects' }, 'Projects'), ' / ',
      h('a', { href: `/projects/${enc(projectId)}` }, project.name), ' / '),
    h('h1', null, `Change requests of ${project.name}`),
    h('nav', { class: 'tabs', 'aria-label': 'Change requests by state' },
      h('ul', null, tabs.map(([id, label, states]) => h('li', null,
        h('a', { href: `${here}?tab=${id}`, 'aria-current': id === tab[0] ? 'page' : null, 'data-tab': id },
          `${label} (${list.filter((cr) => states.includes(cr.state)).length})`))))),
    h('table', { class: 'list change-requests' },
      h('caption', { class: 'sr-only' }, `${tab[1]} change requests`),
      h('thead', null, h('tr', null, ['Title', 'Author', 'Environment', 'State', 'Created']
        .map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, rows.length ? rows.map((cr) => h('tr', { 'data-cr': cr.id },
        h('th', { scope: 'row' }, h('a', { href: `${here}/${cr.id}` }, cr.title),
          h('span', { class: 'desc' }, cr.features.map((f) => f.name).join(', '))),
        h('td', null, cr.createdBy.username),
        h('td', null, cr.environment),
        h('td', null, h('span', { class: 'badge cr-state', 'data-state': cr.state }, cr.state),
          cr.schedule ? h('span', { class: 'desc' }, `at ${fmtDate(cr.schedule.scheduledAt)}`) : null),
        h('td', null, fmtDate(cr.createdAt))))
        : h('tr', null, h('td', { colspan: 5, class: 'empty' }, `No ${tab[1].toLowerCase()} change requests.`)))),
    settings(path, config, envOrder, can));
}

// settings shows, per environment of the project, whether changes there
// need a change request and how many approvals; with UPDATE_PROJECT each
// row is saved on its own, and the table redrawn from the API. Turning
// them off or asking fewer approvals is for Admins: the API says so when
// someone else tries.
function settings(path, config, envOrder, can) {
  const alert = alertBox();
  const editable = can('UPDATE_PROJECT');
  const tbody = h('tbody');
  const draw = (list) => mount(tbody, [...list].sort(envOrder).map(row));
  const row = (c) => {
    const on = checkbox(`Required in ${c.environment}`, c.changeRequestEnabled, { name: `cr-enabled-${c.environment}`, disabled: !editable });
    const approvals = h('input', { type: 'number', min: 1, max: 10, step: 1, value: String(c.requiredApprovals), name: `cr-approvals-${c.environment}`,
      'aria-label': `Approvals needed in ${c.environment}`, disabled: !editable, class: 'narrow' });
    const save = async () => {
      setAlert(alert, '');
      try {
        await api('PUT', `${path}/environments/${enc(c.environment)}/change-requests/config`,
          { changeRequestsEnabled: on.control.checked, requiredApprovals: Number(approvals.value) });
        draw(await api('GET', `${path}/change-requests/config`));
        status(`Change requests ${on.control.checked ? 'required' : 'not required'} in ${c.environment}`);
      } catch (err) {
        setAlert(alert, err.message);
      }
    };
    return h('tr', { 'data-env': c.environment },
      h('th', { scope: 'row' }, c.environment, c.type === 'production' ? h('span', { class: 'badge prod' }, 'prod') : null),
      h('td', null, on.el),
      h('td', null, approvals),
      h('td', { class: 'row-actions' }, editable ? h('button', { type: 'button', onclick: save, 'aria-label': `Save the setting of ${c.environment}` }, 'Save') : null));
  };
  return h('section', { class: 'panel', 'aria-labelledby': 'cr-settings' },
    h('h2', { id: 'cr-settings' }, 'Settings'),
    h('p', { class: 'hint' }, 'Where change requests are required, the flags of this project change only through approved requests. ' +
      'Only an Admin can turn them off or lower the approvals needed.'),
    alert,
    h('table', { class: 'list cr-config' },
      h('caption', { class: 'sr-only' }, 'Change requests per environment'),
      h('thead', null, h('tr', null, ['Environment', 'Change requests', 'Approvals needed', 'Save'].map((c) => h('th', { scope: 'col' }, c)))),
      draw(config)));
}
