// Environments: list in order, create, change type, turn on or off, order.
import { h, mount, field, select, alertBox, setAlert, showError, modal, confirm, status, switchButton } from '../dom.js';
import { api, enc } from '../api.js';
import { can } from '../app.js';

const types = [['development', 'development'], ['test', 'test'], ['preproduction', 'preproduction'], ['production', 'production']];

export async function render(main) {
  const alert = alertBox();
  const body = h('div');
  const act = async (what, fn) => {
    setAlert(alert, '');
    try {
      await fn();
      status(what);
      await load();
      return true;
    } catch (err) {
      setAlert(alert, err.message);
      return false;
    }
  };
  const load = async () => {
    const data = await api('GET', '/api/admin/environments');
    const envs = [...(data.environments || [])].sort((a, b) => a.sortOrder - b.sortOrder || a.name.localeCompare(b.name));
    const move = (i, by) => act('Order saved', () => {
      const order = envs.map((e) => e.name);
      const [n] = order.splice(i, 1);
      order.splice(i + by, 0, n);
      return api('PUT', '/api/admin/environments/sort-order', Object.fromEntries(order.map((name, k) => [name, k + 1])));
    });
    mount(body, h('table', { class: 'list' },
      h('caption', { class: 'sr-only' }, 'Environments'),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'On'), h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Type'),
        h('th', { scope: 'col' }, 'Order'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, envs.map((e, i) => h('tr', { 'data-env': e.name },
        h('td', null, switchButton(`Enable environment ${e.name}`, e.enabled,
          (on) => act(`${e.name} ${on ? 'enabled' : 'disabled'}`, () => api('POST', `/api/admin/environments/${enc(e.name)}/${on ? 'on' : 'off'}`)),
          { disabled: !can('UPDATE_ENVIRONMENT') })),
        h('th', { scope: 'row' }, e.name, e.protected ? h('span', { class: 'badge off' }, 'protected') : null),
        h('td', null, e.type === 'production' ? h('span', { class: 'badge prod' }, e.type) : e.type),
        h('td', { class: 'row-actions' }, can('UPDATE_ENVIRONMENT') && [
          h('button', { type: 'button', class: 'small', disabled: i === 0, 'aria-label': `Move ${e.name} up`, onclick: () => move(i, -1) }, '↑'),
          h('button', { type: 'button', class: 'small', disabled: i === envs.length - 1, 'aria-label': `Move ${e.name} down`, onclick: () => move(i, 1) }, '↓')]),
        h('td', { class: 'row-actions' },
          can('UPDATE_ENVIRONMENT') && !e.protected && h('button', { type: 'button', 'aria-label': `Edit environment ${e.name}`, onclick: async () => {
            if (await envForm(e)) await load();
          } }, 'Edit'),
          can('DELETE_ENVIRONMENT') && !e.protected && h('button', { type: 'button', class: 'danger', 'aria-label': `Delete environment ${e.name}`, onclick: async () => {
            if (await confirm('Delete environment', `Delete the environment ${e.name}? Its strategies go with it.`, 'Delete', { danger: true })) {
              await act(`${e.name} deleted`, () => api('DELETE', `/api/admin/environments/${enc(e.name)}`));
            }
          } }, 'Delete')))))));
  };
  mount(main, h('div', { class: 'page-head' }, h('h1', null, 'Environments'),
    can('CREATE_ENVIRONMENT') && h('button', { type: 'button', class: 'primary', onclick: async () => { if (await envForm(null)) await load(); } }, 'New environment')),
  h('p', { class: 'lead' }, 'Switching a production-type environment in a flag list asks for confirmation. A project uses the environments enabled for it.'),
  alert, body);
  await load();
}

function envForm(e) {
  return modal(e ? `Edit environment ${e.name}` : 'New environment', (close) => {
    const name = field('Name', h('input', { name: 'name', value: e ? e.name : '', disabled: !!e, autocomplete: 'off' }), { name: 'name' });
    const type = field('Type', select(types, e ? e.type : 'development', { name: 'type' }), { name: 'type' });
    const alert = alertBox();
    const form = h('form', { novalidate: true }, name.el, type.el, alert, h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, e ? 'Save' : 'Create environment'),
      h('button', { type: 'button', onclick: () => close(false) }, 'Cancel')));
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      try {
        if (e) await api('PUT', `/api/admin/environments/${enc(e.name)}`, { type: type.control.value, sortOrder: e.sortOrder });
        else await api('POST', '/api/admin/environments', { name: name.control.value.trim(), type: type.control.value, enabled: true });
        close(true);
      } catch (err) {
        showError(err, [name, type], alert);
      }
    });
    return form;
  });
}
