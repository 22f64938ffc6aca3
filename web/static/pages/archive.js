// Archived flags: revive or delete for good.
import { h, mount, alertBox, setAlert, confirm, status, fmtDate } from '../dom.js';
import { api, enc } from '../api.js';
import { can } from '../app.js';

export async function render(main) {
  const alert = alertBox();
  const body = h('div');
  const load = async () => {
    const data = await api('GET', '/api/admin/archive/features');
    const features = data.features || [];
    mount(body, features.length ? h('table', { class: 'list' },
      h('caption', { class: 'sr-only' }, 'Archived flags'),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Project'),
        h('th', { scope: 'col' }, 'Type'), h('th', { scope: 'col' }, 'Archived'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, features.map((f) => h('tr', { 'data-flag': f.name },
        h('th', { scope: 'row' }, f.name), h('td', null, f.project), h('td', null, f.type), h('td', null, fmtDate(f.archivedAt)),
        h('td', { class: 'row-actions' },
          can('UPDATE_FEATURE') && h('button', { type: 'button', 'aria-label': `Revive ${f.name}`, onclick: async () => {
            setAlert(alert, '');
            try {
              await api('POST', `/api/admin/archive/revive/${enc(f.name)}`);
              status(`${f.name} revived`);
              await load();
            } catch (err) {
              setAlert(alert, err.message);
            }
          } }, 'Revive'),
          can('DELETE_FEATURE') && h('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${f.name} for good`, onclick: async () => {
            setAlert(alert, '');
            if (!await confirm('Delete flag', `Delete ${f.name} for good? Its history stays in the event log.`, 'Delete', { danger: true })) return;
            try {
              await api('DELETE', `/api/admin/archive/${enc(f.name)}`);
              status(`${f.name} deleted`);
              await load();
            } catch (err) {
              setAlert(alert, err.message);
            }
          } }, 'Delete')))))) : h('p', { class: 'muted' }, 'No archived flags.'));
  };
  mount(main, h('h1', null, 'Archive'), alert, body);
  await load();
}
