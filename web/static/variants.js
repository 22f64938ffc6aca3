// The editor of a flag's variants in one environment: weights fixed or
// shared, stickiness, payloads (JSON checked before saving) and overrides.
import { h, mount, field, select, alertBox, setAlert, showError, modal, uid } from './dom.js';
import { api, enc, cached } from './api.js';
import { splitList } from './strategy.js';

// editVariants resolves true when the variants were saved: through the
// API, or through save(list) when given (a proposal in a change request).
export async function editVariants({ project, feature, environment, variants, save }) {
  const ctxFields = await cached(`/api/admin/projects/${enc(project)}/context?include=root`);
  const contextNames = (ctxFields || []).map((c) => c.name);
  const url = `/api/admin/projects/${enc(project)}/features/${enc(feature)}/environments/${enc(environment)}/variants`;
  return modal(`Variants of ${feature} in ${environment}`, (close) => {
    const list = JSON.parse(JSON.stringify(variants || []));
    const rowsBox = h('div');
    const totals = h('p', { class: 'summary-box', 'aria-live': 'polite' });
    const alert = alertBox();
    let checks = [];
    const drawTotals = () => {
      const fixed = list.filter((v) => v.weightType === 'fix').reduce((n, v) => n + Number(v.weight || 0), 0);
      const shared = list.filter((v) => v.weightType !== 'fix').length;
      totals.textContent = list.length
        ? `Fixed variants take ${fixed / 10}%; ${shared ? `the other ${shared} share ${(1000 - fixed) / 10}% (${((1000 - fixed) / 10 / shared).toFixed(1)}% each).` : 'no variant shares the rest: one must have a variable weight.'}`
        : 'No variants: SDKs get the "disabled" variant.';
      if (fixed > 1000) totals.textContent += ' Fixed weights add up to more than 100%.';
    };
    const draw = () => {
      checks = [];
      mount(rowsBox, list.map((v, i) => row(v, i)));
      drawTotals();
    };
    const row = (v, i) => {
      const name = field(`Variant ${i + 1}: name`, h('input', { name: `variant-${i}-name`, value: v.name, autocomplete: 'off' }), { name: `[${i}].name` });
      name.control.addEventListener('input', () => { v.name = name.control.value.trim(); });
      const kind = select([['variable', 'Share the rest'], ['fix', 'Fixed percentage']], v.weightType === 'fix' ? 'fix' : 'variable', { name: `variant-${i}-weight-type` });
      const pct = h('input', { type: 'number', min: 0, max: 100, step: 0.1, name: `variant-${i}-weight`, value: v.weightType === 'fix' ? String(v.weight / 10) : '' });
      const pctField = field('Percentage', pct, { name: `[${i}].weight` });
      const sync = () => {
        v.weightType = kind.value;
        pctField.el.hidden = kind.value !== 'fix';
        v.weight = kind.value === 'fix' ? Math.round(Number(pct.value || 0) * 10) : (v.weight || 0);
        drawTotals();
      };
      kind.addEventListener('change', sync);
      pct.addEventListener('input', sync);
      sync();
      const sticky = h('input', { name: `variant-${i}-stickiness`, value: v.stickiness || 'default', autocomplete: 'off' });
      sticky.addEventListener('input', () => { v.stickiness = sticky.value.trim() || 'default'; });
      const ptype = select([['', 'No payload'], ['string', 'string'], ['json', 'json'], ['csv', 'csv'], ['number', 'number']], v.payload ? v.payload.type : '', { name: `variant-${i}-payload-type` });
      const pvalue = h('textarea', { name: `variant-${i}-payload`, rows: 2, spellcheck: 'false' }, v.payload ? v.payload.value : '');
      const payload = field('Payload', pvalue, { name: `[${i}].payload` });
      const check = () => {
        let msg = '';
        if (ptype.value === 'json') {
          try { JSON.parse(pvalue.value); } catch (e) { msg = `Not valid JSON: ${e.message}`; }
        } else if (ptype.value === 'number' && (pvalue.value.trim() === '' || Number.isNaN(Number(pvalue.value)))) msg = 'Not a number';
        payload.setError(msg);
        return msg;
      };
      const psync = () => {
        v.payload = ptype.value ? { type: ptype.value, value: pvalue.value } : undefined;
        payload.el.hidden = !ptype.value;
        if (ptype.value) check(); else payload.setError('');
      };
      ptype.addEventListener('change', psync);
      pvalue.addEventListener('input', psync);
      psync();
      checks.push({ field: payload, check: () => (ptype.value ? check() : '') });
      v.overrides = v.overrides || [];
      const ovBox = h('div');
      const drawOverrides = () => mount(ovBox, v.overrides.map((o, k) => {
        const ctx = select(contextNames.map((n) => [n, n]), o.contextName, { 'aria-label': `Override ${k + 1} of variant ${i + 1}: context field` });
        ctx.addEventListener('change', () => { o.contextName = ctx.value; });
        const vals = h('input', { value: (o.values || []).join(', '), 'aria-label': `Override ${k + 1} of variant ${i + 1}: values, comma-separated`, autocomplete: 'off' });
        vals.addEventListener('input', () => { o.values = splitList(vals.value); });
        return h('div', { class: 'row' }, ctx, vals, h('button', { type: 'button', class: 'small danger', 'aria-label': `Remove override ${k + 1} of variant ${i + 1}`,
          onclick: () => { v.overrides.splice(k, 1); drawOverrides(); } }, 'Remove'));
      }));
      drawOverrides();
      const kindId = kind.id || (kind.id = uid());
      const stickyId = (sticky.id = uid());
      const ptypeId = ptype.id;
      return h('div', { class: 'variant', 'data-variant': i },
        h('div', { class: 'row' }, name.el,
          h('div', { class: 'field' }, h('label', { for: kindId }, 'Weight'), kind), pctField.el,
          h('div', { class: 'field' }, h('label', { for: stickyId }, 'Stickiness'), sticky),
          h('div', { class: 'field' }, h('label', { for: ptypeId }, 'Payload type'), ptype)),
        payload.el,
        h('p', { class: 'hint' }, 'Overrides: contexts whose field has one of the values always get this variant.'), ovBox,
        h('div', { class: 'row' },
          h('button', { type: 'button', class: 'small', onclick: () => { v.overrides.push({ contextName: contextNames.includes('userId') ? 'userId' : contextNames[0], values: [] }); drawOverrides(); } }, `Add override to variant ${i + 1}`),
          h('button', { type: 'button', class: 'small danger', 'aria-label': `Remove variant ${i + 1}`, onclick: () => { list.splice(i, 1); draw(); } }, 'Remove variant')));
    };
    const form = h('form', { novalidate: true }, rowsBox,
      h('button', { type: 'button', onclick: () => { list.push({ name: `variant-${list.length + 1}`, weight: 0, weightType: 'variable', stickiness: 'default', overrides: [] }); draw(); } }, 'Add variant'),
      h('h3', null, 'Weights'), totals, alert,
      h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, 'Save variants'),
        h('button', { type: 'button', onclick: () => close(false) }, 'Cancel')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      setAlert(alert, '');
      const bad = checks.find((c) => c.check());
      if (bad) {
        bad.field.control.focus();
        return;
      }
      const body = list.map((v) => ({
        name: v.name, weight: v.weightType === 'fix' ? v.weight : 0, weightType: v.weightType === 'fix' ? 'fix' : 'variable',
        stickiness: v.stickiness || 'default', overrides: (v.overrides || []).filter((o) => o.values && o.values.length),
        ...(v.payload && v.payload.type ? { payload: v.payload } : {}),
      }));
      try {
        if (save) await save(body);
        else await api('PUT', url, body);
        close(true);
      } catch (err) {
        showError(err, checks.map((c) => c.field), alert);
      }
    });
    draw();
    return form;
  }, { wide: true });
}
