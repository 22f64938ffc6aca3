// An audit event as an expandable item with its data/preData diff, for the
// event log and a flag's history.
import { h, fmtDate } from './dom.js';

export function eventItem(e) {
  const where = [e.project && `project ${e.project}`, e.featureName && `flag ${e.featureName}`, e.environment && `environment ${e.environment}`]
    .filter(Boolean).join(', ');
  return h('details', { class: 'event env-card', 'data-event': e.id },
    h('summary', { class: 'body' },
      h('strong', null, e.type), ' ', h('span', { class: 'muted' }, `#${e.id} · ${fmtDate(e.createdAt)} · by ${e.createdBy || 'unknown'}`),
      where ? h('span', { class: 'desc' }, where) : null),
    h('div', { class: 'body' }, diff(e.preData, e.data)));
}

// diff shows preData and data side by side, with the changed top-level keys.
function diff(before, after) {
  const pretty = (v) => (v === null || v === undefined ? '—' : JSON.stringify(v, null, 2));
  let changed = [];
  if (before && after && typeof before === 'object' && typeof after === 'object') {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    changed = [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  }
  return [
    changed.length ? h('p', null, 'Changed: ', changed.map((k) => h('code', { class: 'tag' }, k))) : null,
    h('div', { class: 'diff' },
      h('div', null, h('h3', null, 'Before (preData)'), h('pre', { class: 'json' }, pretty(before))),
      h('div', null, h('h3', null, 'After (data)'), h('pre', { class: 'json' }, pretty(after)))),
  ];
}
