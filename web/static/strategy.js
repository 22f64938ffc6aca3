// The strategy editor and the plain-words summary of a strategy. The editor
// is built from the strategy definitions the API lists, so built-in and
// custom strategies alike get a field per declared parameter.
import { h, mount, field, checkbox, select, alertBox, setAlert, showError, modal, uid } from './dom.js';
import { api, enc, cached } from './api.js';

// Operators by family: how many values they take and how to enter them.
export const operators = [
  ['IN', 'is one of', 'list'], ['NOT_IN', 'is not one of', 'list'],
  ['STR_CONTAINS', 'contains', 'strlist'], ['STR_STARTS_WITH', 'starts with', 'strlist'], ['STR_ENDS_WITH', 'ends with', 'strlist'],
  ['NUM_EQ', '= (number)', 'number'], ['NUM_GT', '> (number)', 'number'], ['NUM_GTE', '≥ (number)', 'number'],
  ['NUM_LT', '< (number)', 'number'], ['NUM_LTE', '≤ (number)', 'number'],
  ['DATE_AFTER', 'is after (date)', 'date'], ['DATE_BEFORE', 'is before (date)', 'date'],
  ['SEMVER_EQ', '= (version)', 'semver'], ['SEMVER_GT', '> (version)', 'semver'], ['SEMVER_GTE', '≥ (version)', 'semver'],
  ['SEMVER_LT', '< (version)', 'semver'], ['SEMVER_LTE', '≤ (version)', 'semver'],
  ['REGEX', 'matches (regular expression)', 'regex'], ['IN_CIDR', 'is in network (CIDR)', 'list'],
];
const opInfo = new Map(operators.map(([op, text, kind]) => [op, { text, kind }]));
const multi = (op) => ['list', 'strlist'].includes((opInfo.get(op) || {}).kind);

// splitList turns "a, b,c" into ["a", "b", "c"].
export const splitList = (s) => s.split(',').map((x) => x.trim()).filter((x) => x !== '');

// describeConstraint says in words what a constraint asks of the context.
export function describeConstraint(c) {
  const info = opInfo.get(c.operator) || { text: c.operator };
  let vals = multi(c.operator) ? (c.values || []).join(', ') : (c.value || '');
  if (info.kind === 'date' && vals && !Number.isNaN(new Date(vals).getTime())) vals = new Date(vals).toLocaleString();
  // The menu's hint of the value's kind, "(number)", is left out here.
  const words = info.text.replace(/ \(.*\)$/, '');
  let s = `${c.contextName} ${c.inverted ? 'NOT ' : ''}${words} ${vals || '(no value)'}`;
  if (c.caseInsensitive) s += ' (ignoring case)';
  return s;
}

// summary says what a strategy does in plain words.
export function summary(st, segmentNames = new Map()) {
  const p = st.parameters || {};
  let who;
  switch (st.name) {
    case 'default': who = 'On for everyone'; break;
    case 'flexibleRollout': who = `On for ${p.rollout ?? 100}% of ${stickyWords(p.stickiness)}${p.groupId ? ` (group ${p.groupId})` : ''}`; break;
    case 'userWithId': who = `On for the users ${listWords(p.userIds)}`; break;
    case 'remoteAddress': who = `On for the IP addresses ${listWords(p.IPs)}`; break;
    case 'applicationHostname': who = `On for the hosts ${listWords(p.hostNames)}`; break;
    default: {
      const params = Object.entries(p).map(([k, v]) => `${k} = ${v}`).join(', ');
      who = `Strategy ${st.name}${params ? ` with ${params}` : ''}`;
    }
  }
  const parts = [who];
  const cs = st.constraints || [];
  if (cs.length) parts.push(`when ${cs.map(describeConstraint).join(' and ')}`);
  const segs = st.segments || [];
  if (segs.length) parts.push(`in segment${segs.length > 1 ? 's' : ''} ${segs.map((id) => segmentNames.get(id) || `#${id}`).join(', ')}`);
  let s = parts.join(', ');
  const vs = st.variants || [];
  if (vs.length) s += `; variants ${vs.map((v) => v.name).join(', ')}`;
  if (st.disabled) s += ' (disabled: it is not evaluated)';
  return `${s}.`;
}

const listWords = (v) => (v ? splitList(String(v)).join(', ') : '(none)');

function stickyWords(s) {
  if (!s || s === 'default') return 'users (or sessions, or at random)';
  if (s === 'userId') return 'users';
  if (s === 'sessionId') return 'sessions';
  if (s === 'random') return 'evaluations, at random';
  return `values of ${s}`;
}

// toLocalInput turns an ISO date into a datetime-local value and back.
function toLocalInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
const fromLocalInput = (v) => (v ? new Date(v).toISOString() : '');

// editStrategy opens the editor for a new strategy (st null) or st, and
// saves it through the API, or through save(body) when given (a proposal
// in a change request). It resolves true when saved.
export async function editStrategy({ project, feature, environment, st, save }) {
  const [defs, ctxFields, segs] = await Promise.all([
    cached('/api/admin/strategies'),
    cached(`/api/admin/projects/${enc(project)}/context?include=root`),
    cached('/api/admin/segments'),
  ]);
  const definitions = (defs.strategies || []).filter((d) => !d.deprecated || (st && d.name === st.name));
  const contextNames = (ctxFields || []).map((c) => c.name);
  const stickyFields = (ctxFields || []).filter((c) => c.stickiness).map((c) => c.name);
  const segments = segs.segments || [];
  const segmentNames = new Map(segments.map((s) => [s.id, s.name]));
  const base = `/api/admin/projects/${enc(project)}/features/${enc(feature)}/environments/${enc(environment)}/strategies`;

  return modal(st ? 'Edit strategy' : `Add a strategy in ${environment}`, (close) => {
    const draft = st ? JSON.parse(JSON.stringify(st)) : {
      name: 'flexibleRollout', title: '', disabled: false, constraints: [], segments: [], variants: [],
      parameters: { rollout: '100', stickiness: 'default', groupId: feature },
    };
    draft.parameters = draft.parameters || {};
    draft.constraints = draft.constraints || [];
    draft.segments = draft.segments || [];
    draft.variants = draft.variants || [];

    const alert = alertBox();
    const summaryBox = h('p', { class: 'summary-box', 'aria-live': 'polite' });
    const refresh = () => { summaryBox.textContent = summary(draft, segmentNames); };
    const fields = [];

    const typeSel = field('Strategy', select(definitions.map((d) => [d.name, d.title || d.displayName || d.name]), draft.name, { name: 'strategy' }), { name: 'name' });
    const title = field('Title (optional)', h('input', { name: 'title', value: draft.title || '', autocomplete: 'off' }), { name: 'title' });
    title.control.addEventListener('input', () => { draft.title = title.control.value; });
    const paramsBox = h('fieldset', null);
    const drawParams = () => {
      const def = definitions.find((d) => d.name === draft.name) || { parameters: [] };
      const kept = {};
      for (const p of def.parameters || []) kept[p.name] = draft.parameters[p.name] ?? '';
      if (draft.name === 'flexibleRollout') {
        kept.rollout = kept.rollout === '' ? '100' : kept.rollout;
        kept.stickiness = kept.stickiness || 'default';
        kept.groupId = kept.groupId || feature;
      }
      draft.parameters = kept;
      const rows = (def.parameters || []).map((p) => paramField(p, draft, refresh, { stickyFields }));
      for (const r of rows) fields.push(r);
      mount(paramsBox, h('legend', null, 'Parameters'), def.description ? h('p', { class: 'hint' }, def.description) : null,
        rows.length ? rows.map((r) => r.el) : h('p', { class: 'muted' }, 'This strategy has no parameters.'));
      refresh();
    };
    typeSel.control.addEventListener('change', () => { draft.name = typeSel.control.value; drawParams(); });

    // Constraints.
    const consBox = h('div');
    const drawConstraints = () => {
      mount(consBox, draft.constraints.map((c, i) => constraintRow(c, i, contextNames, () => {
        draft.constraints.splice(i, 1);
        drawConstraints();
      }, refresh)));
      refresh();
    };
    const addConstraint = h('button', { type: 'button', onclick: () => {
      draft.constraints.push({ contextName: contextNames.includes('userId') ? 'userId' : contextNames[0] || 'userId', operator: 'IN', values: [], inverted: false, caseInsensitive: false });
      drawConstraints();
      const rows = consBox.querySelectorAll('.constraint');
      rows[rows.length - 1].querySelector('select').focus();
    } }, 'Add constraint');

    // Segments.
    const segBox = h('fieldset', null, h('legend', null, 'Segments'),
      segments.length ? segments.map((s) => {
        const c = checkbox(s.name, draft.segments.includes(s.id), { name: 'segment', value: String(s.id) });
        c.control.addEventListener('change', () => {
          draft.segments = c.control.checked ? [...draft.segments, s.id] : draft.segments.filter((x) => x !== s.id);
          refresh();
        });
        return c.el;
      }) : h('p', { class: 'muted' }, 'No segments defined.'));

    // Variants.
    const varBox = h('div');
    const varFields = [];
    const drawVariants = () => {
      varFields.length = 0;
      mount(varBox, draft.variants.map((v, i) => variantRow(v, i, varFields, () => {
        draft.variants.splice(i, 1);
        drawVariants();
      }, refresh)));
      refresh();
    };
    const addVariant = h('button', { type: 'button', onclick: () => {
      draft.variants.push({ name: `variant-${draft.variants.length + 1}`, weight: 1000, weightType: 'variable', stickiness: 'default' });
      drawVariants();
    } }, 'Add variant');

    const disabled = checkbox('Disabled (kept, but not evaluated)', draft.disabled, { name: 'disabled' });
    disabled.control.addEventListener('change', () => { draft.disabled = disabled.control.checked; refresh(); });

    const form = h('form', { novalidate: true, class: 'strategy-form' },
      h('div', { class: 'row' }, typeSel.el, title.el),
      paramsBox,
      h('fieldset', null, h('legend', null, 'Constraints'), h('p', { class: 'hint' }, 'All constraints must match. Values of lists may be pasted comma-separated.'), consBox, addConstraint),
      segBox,
      h('fieldset', null, h('legend', null, 'Variants'), varBox, addVariant),
      disabled.el,
      h('h3', null, 'Summary'), summaryBox,
      alert,
      h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, 'Save strategy'),
        h('button', { type: 'button', onclick: () => close(false) }, 'Cancel')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      setAlert(alert, '');
      // Payloads are checked here first, so the error sits next to the field.
      let bad = null;
      for (const vf of varFields) {
        const msg = vf.check();
        if (msg && !bad) bad = vf;
      }
      if (bad) {
        bad.field.control.focus();
        return;
      }
      const body = {
        name: draft.name, title: draft.title || '', disabled: draft.disabled, parameters: draft.parameters,
        constraints: draft.constraints.map((c) => (multi(c.operator)
          ? { contextName: c.contextName, operator: c.operator, values: c.values || [], inverted: !!c.inverted, caseInsensitive: !!c.caseInsensitive }
          : { contextName: c.contextName, operator: c.operator, value: c.value || '', values: [], inverted: !!c.inverted, caseInsensitive: !!c.caseInsensitive })),
        segments: draft.segments,
        variants: draft.variants.map((v) => ({ name: v.name, weight: v.weight, weightType: v.weightType || 'variable', stickiness: v.stickiness || 'default', ...(v.payload && v.payload.type ? { payload: v.payload } : {}) })),
      };
      try {
        if (save) await save(body);
        else if (st) await api('PUT', `${base}/${enc(st.id)}`, body);
        else await api('POST', base, body);
        close(true);
      } catch (err) {
        showError(err, fields.concat(varFields.map((v) => v.field)), alert);
      }
    });
    drawParams();
    drawConstraints();
    drawVariants();
    return form;
  }, { wide: true });
}

// paramField is the input for one declared parameter.
function paramField(p, draft, refresh, { stickyFields }) {
  const value = draft.parameters[p.name] ?? '';
  const set = (v) => { draft.parameters[p.name] = v; refresh(); };
  const label = { rollout: 'Rollout (%)', stickiness: 'Stickiness', groupId: 'Group id', userIds: 'User ids', IPs: 'IP addresses', hostNames: 'Host names' }[p.name] || p.name;
  let control;
  if (p.name === 'stickiness' && draft.name === 'flexibleRollout') {
    const opts = ['default', 'userId', 'sessionId', 'random', ...stickyFields.filter((f) => !['userId', 'sessionId'].includes(f))];
    control = select(opts.map((o) => [o, o]), value || 'default', { name: p.name });
    control.addEventListener('change', () => set(control.value));
  } else if (p.type === 'percentage') {
    control = h('input', { type: 'number', min: 0, max: 100, step: 1, name: p.name, value: value === '' ? '100' : value });
    const range = h('input', { type: 'range', min: 0, max: 100, step: 1, value: control.value, 'aria-label': `${label} slider`, tabindex: -1 });
    control.addEventListener('input', () => { range.value = control.value; set(control.value); });
    range.addEventListener('input', () => { control.value = range.value; set(range.value); });
    const f = field(label, control, { name: p.name, hint: p.description });
    f.el.insertBefore(range, control.nextSibling);
    return f;
  } else if (p.type === 'boolean') {
    control = select([['false', 'false'], ['true', 'true']], value === 'true' ? 'true' : 'false', { name: p.name });
    control.addEventListener('change', () => set(control.value));
  } else if (p.type === 'number') {
    control = h('input', { type: 'number', name: p.name, value });
    control.addEventListener('input', () => set(control.value));
  } else if (p.type === 'list') {
    control = h('textarea', { name: p.name, rows: 2 }, value);
    control.addEventListener('input', () => set(splitList(control.value).join(',')));
  } else {
    control = h('input', { name: p.name, value, autocomplete: 'off' });
    control.addEventListener('input', () => set(control.value));
  }
  return field(label + (p.required ? ' (required)' : ''), control, {
    name: p.name, hint: p.type === 'list' ? `${p.description ? `${p.description} ` : ''}Separate values with commas.` : p.description,
  });
}

// constraintRow edits one constraint in place.
export function constraintRow(c, i, contextNames, remove, refresh) {
  const names = contextNames.includes(c.contextName) ? contextNames : [c.contextName, ...contextNames];
  const ctx = select(names.map((n) => [n, n]), c.contextName, { name: `constraint-${i}-context` });
  const op = select(operators.map(([o, text]) => [o, `${text} (${o})`]), c.operator, { name: `constraint-${i}-operator` });
  const inverted = checkbox('Not (invert)', !!c.inverted, { name: `constraint-${i}-inverted` });
  const fold = checkbox('Ignore case', !!c.caseInsensitive, { name: `constraint-${i}-case` });
  const valueSlot = h('div', { class: 'field grow' });
  const drawValue = () => {
    const kind = (opInfo.get(c.operator) || {}).kind;
    fold.el.hidden = !['list', 'strlist'].includes(kind) || c.operator === 'IN_CIDR';
    let input;
    const id = uid();
    if (multi(c.operator)) {
      input = h('input', { id, name: `constraint-${i}-values`, value: (c.values || []).join(', '), autocomplete: 'off' });
      input.addEventListener('input', () => { c.values = splitList(input.value); refresh(); });
    } else if (kind === 'date') {
      input = h('input', { id, type: 'datetime-local', name: `constraint-${i}-value`, value: toLocalInput(c.value) });
      input.addEventListener('input', () => { c.value = fromLocalInput(input.value); refresh(); });
    } else {
      input = h('input', { id, type: kind === 'number' ? 'number' : 'text', step: 'any', name: `constraint-${i}-value`, value: c.value || '', autocomplete: 'off' });
      input.addEventListener('input', () => { c.value = input.value; refresh(); });
    }
    mount(valueSlot, h('label', { for: id }, multi(c.operator) ? 'Values (comma-separated)' : 'Value'), input);
  };
  ctx.addEventListener('change', () => { c.contextName = ctx.value; refresh(); });
  op.addEventListener('change', () => {
    const wasMulti = multi(c.operator);
    c.operator = op.value;
    if (wasMulti !== multi(c.operator)) {
      if (multi(c.operator)) { c.values = c.value ? [c.value] : []; delete c.value; } else { c.value = (c.values || [])[0] || ''; c.values = []; }
    }
    drawValue();
    refresh();
  });
  inverted.control.addEventListener('change', () => { c.inverted = inverted.control.checked; refresh(); });
  fold.control.addEventListener('change', () => { c.caseInsensitive = fold.control.checked; refresh(); });
  drawValue();
  return h('div', { class: 'constraint', 'data-constraint': i },
    h('div', { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: ctx.id }, `Constraint ${i + 1}: context field`), ctx),
      h('div', { class: 'field' }, h('label', { for: op.id }, 'Operator'), op),
      valueSlot),
    h('div', { class: 'row' }, inverted.el, fold.el,
      h('button', { type: 'button', class: 'small danger', onclick: remove, 'aria-label': `Remove constraint ${i + 1}` }, 'Remove')));
}

// variantRow edits one strategy variant; its payload is checked as typed.
function variantRow(v, i, varFields, remove, refresh) {
  const name = h('input', { name: `variant-${i}-name`, value: v.name, autocomplete: 'off' });
  name.addEventListener('input', () => { v.name = name.value; refresh(); });
  const type = select([['', 'No payload'], ['string', 'string'], ['json', 'json'], ['csv', 'csv'], ['number', 'number']],
    v.payload ? v.payload.type : '', { name: `variant-${i}-payload-type` });
  const value = h('textarea', { name: `variant-${i}-payload`, rows: 3, spellcheck: 'false' }, v.payload ? v.payload.value : '');
  const payload = field('Payload', value, { name: `variants[${i}].payload` });
  const check = () => {
    let msg = '';
    const t = type.value;
    if (t === 'json') {
      try { JSON.parse(value.value); } catch (e) { msg = `Not valid JSON: ${e.message}`; }
    } else if (t === 'number' && (value.value.trim() === '' || Number.isNaN(Number(value.value)))) {
      msg = 'Not a number';
    }
    payload.setError(msg);
    return msg;
  };
  const sync = () => {
    v.payload = type.value ? { type: type.value, value: value.value } : undefined;
    payload.el.hidden = !type.value;
    if (type.value) check(); else payload.setError('');
  };
  type.addEventListener('change', sync);
  value.addEventListener('input', sync);
  sync();
  varFields.push({ field: payload, check: () => (type.value ? check() : '') });
  return h('div', { class: 'variant', 'data-variant': i },
    h('div', { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: (name.id = uid()) }, `Variant ${i + 1}: name`), name),
      h('div', { class: 'field' }, h('label', { for: type.id }, 'Payload type'), type),
      h('button', { type: 'button', class: 'small danger', onclick: remove, 'aria-label': `Remove variant ${i + 1}` }, 'Remove')),
    payload.el);
}
