// The event log: every audit event, newest first, filtered by type,
// project, flag, user and date range; each expands to its data and preData.
import { h, mount, field, select, alertBox, setAlert, debounce } from '../dom.js';
import { api, enc } from '../api.js';
import { eventItem } from '../events.js';

const pageSize = 50;

export async function render(main, params, query) {
  const projects = await api('GET', '/api/admin/projects');
  const alert = alertBox();
  const type = field('Type', h('input', { name: 'type', value: query.get('type') || '', placeholder: 'e.g. feature-environment-enabled', list: 'event-types', autocomplete: 'off' }), { name: 'type' });
  const project = field('Project', select([['', 'Any project'], ...(projects.projects || []).map((p) => [p.id, p.name])], query.get('project') || '', { name: 'project' }), { name: 'project' });
  const flag = field('Flag', h('input', { name: 'feature', value: query.get('feature') || '', autocomplete: 'off' }), { name: 'feature' });
  const user = field('User', h('input', { name: 'user', value: query.get('user') || '', placeholder: 'Name, username or e-mail', autocomplete: 'off' }), { name: 'createdBy' });
  const from = field('From', h('input', { type: 'date', name: 'from', value: query.get('from') || '' }), { name: 'from' });
  const to = field('To', h('input', { type: 'date', name: 'to', value: query.get('to') || '' }), { name: 'to' });
  const fields = [type, project, flag, user, from, to];
  const types = h('datalist', { id: 'event-types' }, ['feature-created', 'feature-updated', 'feature-archived', 'feature-revived',
    'feature-environment-enabled', 'feature-environment-disabled', 'feature-strategy-add', 'feature-strategy-update',
    'feature-strategy-remove', 'project-created', 'project-updated', 'project-deleted', 'segment-created', 'user-created',
  ].map((t) => h('option', { value: t })));
  const count = h('p', { class: 'count', 'aria-live': 'polite' });
  const list = h('div', { class: 'events' });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' });
  let offset = 0;
  let seq = 0;

  const load = async () => {
    const mine = ++seq;
    setAlert(alert, '');
    for (const f of fields) f.setError('');
    const q = new URLSearchParams({ limit: String(pageSize), offset: String(offset) });
    if (type.control.value.trim()) q.set('type', `IS:${type.control.value.trim()}`);
    if (project.control.value) q.set('project', `IS:${project.control.value}`);
    if (flag.control.value.trim()) q.set('feature', `IS:${flag.control.value.trim()}`);
    if (from.control.value) q.set('from', `IS:${from.control.value}`);
    if (to.control.value) q.set('to', `IS:${to.control.value}`);
    try {
      const who = user.control.value.trim();
      if (who) {
        const users = await api('GET', `/api/admin/user-admin/search?q=${enc(who)}`);
        const ids = (users || []).map((u) => u.id);
        if (!ids.length) {
          if (mine !== seq) return;
          user.setError(`No user matches ${who}`);
          mount(list);
          count.textContent = '0 events';
          mount(pager);
          return;
        }
        q.set('createdBy', `IS_ANY_OF:${ids.join(',')}`);
      }
      const data = await api('GET', `/api/admin/search/events?${q}`);
      if (mine !== seq) return;
      const events = data.events || [];
      count.textContent = `${data.total} event${data.total === 1 ? '' : 's'}`;
      mount(list, events.length ? events.map(eventItem) : h('p', { class: 'muted' }, 'No event matches the filters.'));
      mount(pager, data.total > pageSize ? [
        h('button', { type: 'button', disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - pageSize); load(); } }, 'Newer'),
        h('span', null, `${offset + 1}–${Math.min(offset + pageSize, data.total)} of ${data.total}`),
        h('button', { type: 'button', disabled: offset + pageSize >= data.total, onclick: () => { offset += pageSize; load(); } }, 'Older'),
      ] : null);
    } catch (err) {
      if (mine === seq) {
        const f = fields.find((x) => x.name === err.path);
        if (f) f.setError(err.message); else setAlert(alert, err.message);
      }
    }
  };
  const reload = () => {
    offset = 0;
    // Keep the filters in the address, so that a filtered log can be shared.
    const q = new URLSearchParams();
    for (const [k, f] of [['type', type], ['project', project], ['feature', flag], ['user', user], ['from', from], ['to', to]]) {
      if (f.control.value.trim()) q.set(k, f.control.value.trim());
    }
    history.replaceState(null, '', q.toString() ? `/events?${q}` : '/events');
    load();
  };
  const typed = debounce(reload, 250);
  for (const f of [type, flag, user]) f.control.addEventListener('input', typed);
  for (const f of [project, from, to]) f.control.addEventListener('change', reload);

  mount(main, h('h1', null, 'Event log'),
    h('form', { class: 'filters', role: 'search', onsubmit: (e) => { e.preventDefault(); reload(); } },
      fields.map((f) => f.el), types),
    alert, count, list, pager);
  await load();
}
