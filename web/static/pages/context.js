// Context fields: list with where-used, create, edit legal values and
// stickiness, delete.
import { h, mount, field, checkbox, alertBox, setAlert, showError, modal, confirm, status } from '../dom.js';
import { api, enc } from '../api.js';
import { can } from '../app.js';

export async function render(main) {
  const alert = alertBox();
  const body = h('div');
  const load = async () => {
    const fields = await api('GET', '/api/admin/context');
    mount(body, h('table', { class: 'list' },
      h('caption', { class: 'sr-only' }, 'Context fields'),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Description'),
        h('th', { scope: 'col' }, 'Legal values'), h('th', { scope: 'col' }, 'Stickiness'), h('th', { scope: 'col', class: 'num' }, 'Used in flags'),
        h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, (fields || []).map((c) => h('tr', { 'data-context': c.name },
        h('th', { scope: 'row' }, c.name), h('td', null, c.description || ''),
        h('td', null, (c.legalValues || []).map((v) => h('span', { class: 'tag', title: v.description || '' }, v.value))),
        h('td', null, c.stickiness ? 'Yes' : 'No'), h('td', { class: 'num' }, String(c.usedInFeatures ?? 0)),
        h('td', { class: 'row-actions' },
          can('UPDATE_CONTEXT_FIELD') && h('button', { type: 'button', 'aria-label': `Edit context field ${c.name}`, onclick: async () => {
            if (await contextForm(c)) await load();
          } }, 'Edit'),
          can('DELETE_CONTEXT_FIELD') && h('button', { type: 'button', class: 'danger', 'aria-label': `Delete context field ${c.name}`, onclick: async () => {
            setAlert(alert, '');
            if (!await confirm('Delete context field', `Delete the context field ${c.name}?`, 'Delete', { danger: true })) return;
            try {
              await api('DELETE', `/api/admin/context/${enc(c.name)}`);
              status(`${c.name} deleted`);
              await load();
            } catch (err) {
              setAlert(alert, err.message);
            }
          } }, 'Delete')))))));
  };
  mount(main, h('div', { class: 'page-head' }, h('h1', null, 'Context fields'),
    can('CREATE_CONTEXT_FIELD') && h('button', { type: 'button', class: 'primary', onclick: async () => { if (await contextForm(null)) await load(); } }, 'New context field')),
  alert, body);
  await load();
}

function contextForm(c) {
  return modal(c ? `Edit context field ${c.name}` : 'New context field', (close) => {
    const name = field('Name', h('input', { name: 'name', value: c ? c.name : '', disabled: !!c, autocomplete: 'off' }), { name: 'name' });
    const desc = field('Description', h('input', { name: 'description', value: c ? c.description || '' : '', autocomplete: 'off' }), { name: 'description' });
    const legal = field('Legal values', h('textarea', { name: 'legalValues', rows: 3 }, c ? (c.legalValues || []).map((v) => v.value).join(', ') : ''),
      { name: 'legalValues', hint: 'Comma-separated; leave empty to allow any value. Constraints on this field then offer only these.' });
    const sticky = checkbox('Can be used for stickiness in gradual rollouts', c ? c.stickiness : false, { name: 'stickiness' });
    const alert = alertBox();
    const fields = [name, desc, legal];
    const form = h('form', { novalidate: true }, name.el, desc.el, legal.el, sticky.el, alert, h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, c ? 'Save' : 'Create context field'),
      h('button', { type: 'button', onclick: () => close(false) }, 'Cancel')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const values = legal.control.value.split(',').map((v) => v.trim()).filter(Boolean);
      const old = new Map(((c && c.legalValues) || []).map((v) => [v.value, v.description]));
      const body = { name: name.control.value.trim(), description: desc.control.value, stickiness: sticky.control.checked,
        legalValues: values.map((v) => (old.get(v) ? { value: v, description: old.get(v) } : { value: v })) };
      try {
        if (c) await api('PUT', `/api/admin/context/${enc(c.name)}`, body);
        else await api('POST', '/api/admin/context', body);
        close(true);
      } catch (err) {
        showError(err, fields, alert);
      }
    });
    return form;
  });
}
