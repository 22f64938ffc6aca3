// Segments: list with where-used, create, edit, delete (refused by the API
// while a strategy uses the segment).
import { h, mount, field, alertBox, setAlert, showError, modal, confirm, status } from '../dom.js';
import { api, enc, cached } from '../api.js';
import { can } from '../app.js';
import { constraintRow, summary } from '../strategy.js';

export async function render(main) {
  const alert = alertBox();
  const body = h('div');
  const load = async () => {
    const data = await api('GET', '/api/admin/segments');
    const segments = data.segments || [];
    mount(body, segments.length ? h('table', { class: 'list' },
      h('caption', { class: 'sr-only' }, 'Segments'),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Constraints'),
        h('th', { scope: 'col' }, 'Project'), h('th', { scope: 'col', class: 'num' }, 'Used in flags'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, segments.map((sg) => h('tr', { 'data-segment': sg.id },
        h('th', { scope: 'row' }, sg.name, sg.description ? h('span', { class: 'desc' }, sg.description) : null),
        h('td', null, summary({ name: 'default', constraints: sg.constraints }).replace(/^On for everyone, when /, '').replace(/^On for everyone/, 'Everyone')),
        h('td', null, sg.project || 'All projects'),
        h('td', { class: 'num' }, h('button', { type: 'button', class: 'link', 'aria-label': `Where is ${sg.name} used`, onclick: () => whereUsed(sg) }, String(sg.usedInFeatures ?? 0))),
        h('td', { class: 'row-actions' },
          can('UPDATE_SEGMENT') && h('button', { type: 'button', 'aria-label': `Edit segment ${sg.name}`, onclick: async () => { if (await segmentForm(sg)) await load(); } }, 'Edit'),
          can('DELETE_SEGMENT') && h('button', { type: 'button', class: 'danger', 'aria-label': `Delete segment ${sg.name}`, onclick: async () => {
            setAlert(alert, '');
            if (!await confirm('Delete segment', `Delete the segment ${sg.name}?`, 'Delete', { danger: true })) return;
            try {
              await api('DELETE', `/api/admin/segments/${sg.id}`);
              status(`${sg.name} deleted`);
              await load();
            } catch (err) {
              setAlert(alert, err.message);
            }
          } }, 'Delete')))))) : h('p', { class: 'muted' }, 'No segments yet.'));
  };
  mount(main, h('div', { class: 'page-head' }, h('h1', null, 'Segments'),
    can('CREATE_SEGMENT') && h('button', { type: 'button', class: 'primary', onclick: async () => { if (await segmentForm(null)) await load(); } }, 'New segment')),
  h('p', { class: 'lead' }, 'A segment is a named list of constraints that strategies of any flag can reuse.'),
  alert, body);
  await load();
}

async function whereUsed(sg) {
  const data = await api('GET', `/api/admin/segments/${sg.id}/strategies`);
  const list = data.strategies || [];
  await modal(`Where ${sg.name} is used`, (close) => [
    list.length ? h('ul', null, list.map((s) => h('li', null,
      h('a', { href: `/projects/${enc(s.projectId)}/features/${enc(s.featureName)}`, onclick: () => close() }, s.featureName),
      ` in ${s.environment} (${s.strategyName || 'strategy'})`))) : h('p', null, 'No strategy uses this segment.'),
    h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => close() }, 'Close')),
  ]);
}

async function segmentForm(sg) {
  const ctxFields = await cached('/api/admin/context');
  const contextNames = (ctxFields || []).map((c) => c.name);
  return modal(sg ? `Edit segment ${sg.name}` : 'New segment', (close) => {
    const draft = { constraints: sg ? JSON.parse(JSON.stringify(sg.constraints || [])) : [] };
    const name = field('Name', h('input', { name: 'name', value: sg ? sg.name : '', autocomplete: 'off' }), { name: 'name' });
    const desc = field('Description', h('input', { name: 'description', value: sg ? sg.description || '' : '', autocomplete: 'off' }), { name: 'description' });
    const box = h('div');
    const draw = () => mount(box, draft.constraints.map((c, i) => constraintRow(c, i, contextNames, () => { draft.constraints.splice(i, 1); draw(); }, () => {})));
    draw();
    const alert = alertBox();
    const form = h('form', { novalidate: true }, name.el, desc.el,
      h('fieldset', null, h('legend', null, 'Constraints'), box, h('button', { type: 'button', onclick: () => {
        draft.constraints.push({ contextName: contextNames.includes('userId') ? 'userId' : contextNames[0], operator: 'IN', values: [], inverted: false, caseInsensitive: false });
        draw();
      } }, 'Add constraint')),
      alert, h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, sg ? 'Save' : 'Create segment'),
        h('button', { type: 'button', onclick: () => close(false) }, 'Cancel')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = { name: name.control.value.trim(), description: desc.control.value, constraints: draft.constraints };
      if (sg && sg.project) body.project = sg.project;
      try {
        if (sg) await api('PUT', `/api/admin/segments/${sg.id}`, body);
        else await api('POST', '/api/admin/segments', body);
        close(true);
      } catch (err) {
        showError(err, [name, desc], alert);
      }
    });
    return form;
  }, { wide: true });
}
