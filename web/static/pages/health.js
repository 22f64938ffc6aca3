// A project's health report and DORA lead time: the figures of
// GET …/health-report and GET …/dora, with the flags that need attention.
import { h, mount } from '../dom.js';
import { api, enc } from '../api.js';

export async function render(main, [projectId]) {
  const [rep, dora] = await Promise.all([
    api('GET', `/api/admin/projects/${enc(projectId)}/health-report`),
    api('GET', `/api/admin/projects/${enc(projectId)}/dora`),
  ]);
  const figure = (label, value, name) => h('div', { class: 'figure', 'data-figure': name },
    h('dt', null, label), h('dd', null, String(value)));
  const s = rep.stats || {};
  const band = rep.health < 50 ? 'poor' : rep.health < 75 ? 'fair' : 'good';
  const stale = (rep.features || []).filter((f) => f.stale);
  const days = (d) => `${Math.round(d * 10) / 10} days`;
  mount(main,
    h('p', { class: 'crumbs' }, h('a', { href: '/projects' }, 'Projects'), ' / ',
      h('a', { href: `/projects/${enc(projectId)}` }, rep.name), ' / '),
    h('h1', null, `Health of ${rep.name}`),
    h('section', { class: 'panel', 'aria-labelledby': 'health-figures' },
      h('h2', { id: 'health-figures' }, 'Health'),
      h('p', { class: `health-rating ${band}`, 'data-health': band },
        h('strong', null, `${rep.health} %`), ' of the active flags are neither stale nor past their expected lifetime.'),
      h('dl', { class: 'figures' },
        figure('Active flags', (rep.activeCount || 0) + (rep.staleCount || 0), 'active'),
        figure('Stale', rep.staleCount || 0, 'stale'),
        figure('Potentially stale', rep.potentiallyStaleCount || 0, 'potentiallyStale'),
        figure('Members', rep.members || 0, 'members'))),
    h('section', { class: 'panel', 'aria-labelledby': 'health-stats' },
      h('h2', { id: 'health-stats' }, 'Last 30 days (and the 30 before)'),
      h('dl', { class: 'figures' },
        figure('Flags created', `${s.createdCurrentWindow || 0} (${s.createdPastWindow || 0})`, 'created'),
        figure('Flags archived', `${s.archivedCurrentWindow || 0} (${s.archivedPastWindow || 0})`, 'archived'),
        figure('Project events', `${s.projectActivityCurrentWindow || 0} (${s.projectActivityPastWindow || 0})`, 'activity'),
        figure('Members added', s.projectMembersAddedCurrentWindow || 0, 'membersAdded'),
        figure('Average time to production', days(s.avgTimeToProdCurrentWindow || 0), 'timeToProd'))),
    h('section', { class: 'panel', 'aria-labelledby': 'health-attention' },
      h('h2', { id: 'health-attention' }, 'Flags marked stale'),
      stale.length ? h('ul', { class: 'attention' }, stale.map((f) => h('li', { 'data-flag': f.name },
        h('a', { href: `/projects/${enc(projectId)}/features/${enc(f.name)}` }, f.name)))) : h('p', { class: 'muted' }, 'None.')),
    h('section', { class: 'panel', 'aria-labelledby': 'dora' },
      h('h2', { id: 'dora' }, 'Lead time to production (DORA)'),
      h('p', { 'data-figure': 'projectAverage' }, 'Average: ', h('strong', null, days(dora.projectAverage || 0)),
        ' from a flag\'s creation to its first enabling in a production environment.'),
      (dora.features || []).length ? h('table', { class: 'list' },
        h('caption', { class: 'sr-only' }, 'Time to production per flag'),
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Flag'), h('th', { scope: 'col', class: 'num' }, 'Time to production'))),
        h('tbody', null, dora.features.map((f) => h('tr', { 'data-dora': f.name },
          h('th', { scope: 'row' }, f.name), h('td', { class: 'num' }, days(f.timeToProduction))))))
        : h('p', { class: 'muted' }, 'No flag of this project has reached production yet.')));
}
