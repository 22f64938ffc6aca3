// The changes of a change request as line diffs: what the flag (or
// segment) looks like in the request's environment now, and what it will
// look like once the change is applied. Both sides are written as lines
// of words and compared line by line, so a reviewer reads removed lines
// and added lines rather than JSON.
import { h } from './dom.js';
import { describeConstraint } from './strategy.js';

const onOff = (b) => (b ? 'on' : 'off');

// strategyLines writes one strategy as lines: its name, then one line per
// parameter, constraint, segment and variant.
export function strategyLines(st, segmentNames = new Map()) {
  if (!st) return [];
  const name = st.title ? `${st.title} (${st.name})` : st.name;
  return [
    `Strategy ${name}${st.disabled ? ', disabled' : ''}`,
    ...Object.keys(st.parameters || {}).sort().map((k) => `  ${k}: ${st.parameters[k]}`),
    ...(st.constraints || []).map((c) => `  when ${describeConstraint(c)}`),
    ...(st.segments || []).map((id) => `  in segment ${segmentNames.get(id) || `#${id}`}`),
    ...(st.variants || []).map((v) => `  variant ${v.name} ${(v.weight || 0) / 10}%`),
  ];
}

function variantLines(variants) {
  const list = variants || [];
  if (!list.length) return ['No variants'];
  // A variable weight is the server's share of the rest: proposals carry
  // 0 for it, so it is named rather than given in percent.
  return list.map((v) => `Variant ${v.name} ${v.weightType === 'fix' ? `${(v.weight || 0) / 10}%` : 'sharing the rest'}${v.stickiness ? `, sticky on ${v.stickiness}` : ''}` +
    `${v.payload ? `, payload (${v.payload.type}) ${v.payload.value}` : ''}`);
}

function dependencyLines(deps) {
  const list = deps || [];
  if (!list.length) return ['Depends on no flag'];
  return list.map((d) => `Depends on ${d.feature} being ${onOff(d.enabled !== false)}` +
    `${(d.variants || []).length ? ` with variant ${d.variants.join(' or ')}` : ''}`);
}

function segmentLines(sg) {
  if (!sg) return [];
  return [`Segment ${sg.name}`, ...(sg.description ? [`  ${sg.description}`] : []),
    ...(sg.constraints || []).map((c) => `  when ${describeConstraint(c)}`)];
}

const byOrder = (a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0);

// describe returns the title of change c and the lines before and after
// it. now is the current state: env (the flag in the request's
// environment: enabled, strategies, variants), flag (dependencies) and
// segments (by id), each missing when unknown.
export function describe(c, now) {
  const p = c.payload || {};
  const env = now.env || {};
  const strategies = [...(env.strategies || [])].sort(byOrder);
  const current = strategies.find((st) => st.id === p.id);
  const names = now.segmentNames;
  switch (c.action) {
    case 'updateEnabled':
      return {
        title: `Turn ${onOff(p.enabled)}${p.shouldActivateDisabledStrategies ? ', enabling its disabled strategies' : ''}`,
        before: now.env ? [`Enabled: ${onOff(env.enabled)}`] : [], after: [`Enabled: ${onOff(p.enabled)}`],
      };
    case 'addStrategy':
      return { title: 'Add a strategy', before: [], after: strategyLines(p, names) };
    case 'updateStrategy':
      return { title: 'Change a strategy', before: strategyLines(current, names), after: strategyLines(p, names) };
    case 'deleteStrategy':
      return { title: 'Delete a strategy', before: strategyLines(current || { name: `#${p.id}` }, names), after: [] };
    case 'reorderStrategy': {
      const order = new Map((Array.isArray(c.payload) ? c.payload : []).map((x) => [x.id, x.sortOrder]));
      const after = [...strategies].sort((a, b) => (order.get(a.id) ?? a.sortOrder ?? 0) - (order.get(b.id) ?? b.sortOrder ?? 0));
      const line = (st, i) => `${i + 1}. ${st.title || st.name}`;
      return { title: 'Reorder the strategies', before: strategies.map(line), after: after.map(line) };
    }
    case 'patchVariant':
      return { title: 'Change the variants', before: now.env ? variantLines(env.variants) : [], after: variantLines(p.variants) };
    case 'addDependency': {
      const deps = (now.flag || {}).dependencies || [];
      return { title: `Depend on ${p.feature}`, before: dependencyLines(deps),
        after: dependencyLines([...deps.filter((d) => d.feature !== p.feature), p]) };
    }
    case 'deleteDependency': {
      const deps = (now.flag || {}).dependencies || [];
      return { title: p.feature ? `Stop depending on ${p.feature}` : 'Remove the dependencies', before: dependencyLines(deps),
        after: dependencyLines(p.feature ? deps.filter((d) => d.feature !== p.feature) : []) };
    }
    case 'archiveFeature':
      return { title: 'Archive the flag', before: ['Flag active'], after: ['Flag archived'] };
    case 'updateSegment':
      return { title: `Change segment ${c.name || p.name || `#${p.id}`}`, before: segmentLines(now.segment), after: segmentLines(p) };
    case 'deleteSegment':
      return { title: `Delete segment ${c.name || `#${p.id}`}`, before: segmentLines(now.segment || { name: c.name || `#${p.id}` }), after: [] };
  }
  return { title: c.action, before: [], after: [JSON.stringify(c.payload)] };
}

// lineDiff compares two lists of lines by their longest common
// subsequence and returns [kind, line] pairs: ' ' kept, '-' removed,
// '+' added, removals before additions where lines were replaced.
export function lineDiff(before, after) {
  const n = before.length;
  const m = after.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lcs[i][j] = before[i] === after[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      out.push([' ', before[i]]);
      i += 1;
      j += 1;
    } else if (i < n && (j >= m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push(['-', before[i]]);
      i += 1;
    } else {
      out.push(['+', after[j]]);
      j += 1;
    }
  }
  return out;
}

// diffList renders a line diff: removed lines struck out (<del>), added
// ones underlined (<ins>), each also announced in words.
export function diffList(before, after) {
  const rows = lineDiff(before, after);
  if (!rows.length) return h('p', { class: 'muted' }, 'Nothing to show.');
  return h('ul', { class: 'line-diff' }, rows.map(([kind, line]) => {
    if (kind === '-') return h('li', { class: 'del' }, h('span', { class: 'sign', 'aria-hidden': 'true' }, '−'), h('del', null, h('span', { class: 'sr-only' }, 'Removed: '), line));
    if (kind === '+') return h('li', { class: 'add' }, h('span', { class: 'sign', 'aria-hidden': 'true' }, '+'), h('ins', null, h('span', { class: 'sr-only' }, 'Added: '), line));
    return h('li', { class: 'same' }, h('span', { class: 'sign', 'aria-hidden': 'true' }, ' '), h('span', null, line));
  }));
}
