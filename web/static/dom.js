// Small DOM helpers: elements are built with h() and never from HTML
// strings, so text from the API can never become markup.

let counter = 0;

// uid returns an id unique in the page, for label/input pairs.
export function uid(prefix = 'f') {
  counter += 1;
  return `${prefix}-${counter}`;
}

// Properties set as DOM properties rather than attributes.
const props = new Set(['value', 'checked', 'selected', 'disabled', 'indeterminate']);

// h builds an element: h('button', {class: 'x', onclick: fn}, 'Save').
// Attributes with null, undefined or false values are left out; children
// may be strings, numbers, nodes, arrays or null.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2), v);
    } else if (k === 'class') {
      el.className = v;
    } else if (props.has(k)) {
      el[k] = v;
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  add(el, children);
  return el;
}

function add(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// mount replaces the children of parent.
export function mount(parent, ...children) {
  parent.replaceChildren();
  add(parent, children);
  return parent;
}

// field wraps a control with its label and a slot for its error message,
// linked by aria-describedby so that screen readers read the error.
export function field(label, control, { hint, name } = {}) {
  if (!control.id) control.id = uid();
  const errId = `${control.id}-error`;
  const error = h('p', { class: 'field-error', id: errId, hidden: true });
  const described = [errId];
  let hintEl = null;
  if (hint) {
    hintEl = h('p', { class: 'hint', id: `${control.id}-hint` }, hint);
    described.push(hintEl.id);
  }
  control.setAttribute('aria-describedby', described.join(' '));
  const wrap = h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintEl, error);
  const f = {
    el: wrap, control, name,
    setError(msg) {
      error.textContent = msg || '';
      error.hidden = !msg;
      if (msg) control.setAttribute('aria-invalid', 'true');
      else control.removeAttribute('aria-invalid');
    },
  };
  return f;
}

// checkbox is a labelled checkbox.
export function checkbox(label, checked, attrs = {}) {
  const input = h('input', { type: 'checkbox', id: uid(), checked, ...attrs });
  return { el: h('div', { class: 'check' }, input, h('label', { for: input.id }, label)), control: input };
}

// select builds a <select> from [value, text] pairs.
export function select(options, value, attrs = {}) {
  return h('select', { id: uid(), ...attrs },
    options.map(([v, t]) => h('option', { value: v, selected: v === value }, t)));
}

// showError puts an API error next to the fields it names (details[].path)
// and the rest in the form's alert.
export function showError(err, fields, alert) {
  for (const f of fields) f.setError('');
  let placed = false;
  for (const d of err.details || []) {
    const f = fields.find((x) => x.name && (d.path === x.name || d.path?.endsWith(`.${x.name}`) || d.path?.endsWith(`/${x.name}`)));
    if (f) {
      f.setError(d.message);
      placed = true;
    }
  }
  if (!placed) {
    const f = fields.find((x) => x.name && x.name === err.path);
    if (f) {
      f.setError(err.message);
      placed = true;
    }
  }
  if (alert) {
    alert.textContent = placed ? '' : err.message;
    alert.hidden = placed;
  }
  const bad = fields.find((f) => f.control.getAttribute('aria-invalid'));
  if (bad) bad.control.focus();
}

// alertBox is a region for messages that concern a whole form or page.
export function alertBox() {
  return h('p', { class: 'alert', role: 'alert', hidden: true });
}

export function setAlert(box, msg) {
  box.textContent = msg || '';
  box.hidden = !msg;
}

// modal opens a <dialog> with title and body; build(close) returns the
// content, where close(value) closes it and resolves the promise.
export function modal(title, build, { wide = false } = {}) {
  return new Promise((resolve) => {
    const headId = uid('dlg');
    const dlg = h('dialog', { class: wide ? 'wide' : '', 'aria-labelledby': headId });
    let done = false;
    const close = (value) => {
      if (done) return;
      done = true;
      dlg.close();
      dlg.remove();
      resolve(value);
    };
    dlg.addEventListener('cancel', (e) => {
      e.preventDefault();
      close(undefined);
    });
    mount(dlg, h('h2', { id: headId }, title), build(close));
    document.body.append(dlg);
    dlg.showModal();
    const first = dlg.querySelector('[autofocus], input, select, textarea, button');
    if (first) first.focus();
  });
}

// confirm asks a yes/no question in a dialog.
export function confirm(title, message, yes = 'Confirm', { danger = false } = {}) {
  return modal(title, (close) => [
    h('p', null, message),
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: danger ? 'danger' : 'primary', onclick: () => close(true) }, yes),
      h('button', { type: 'button', onclick: () => close(false) }, 'Cancel')),
  ]);
}

// status announces a short message in the page's live region.
export function status(msg) {
  const el = document.getElementById('status');
  if (!el) return;
  el.textContent = msg;
  clearTimeout(status.timer);
  status.timer = setTimeout(() => { el.textContent = ''; }, 5000);
}

export function fmtDate(s) {
  if (!s) return '';
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) return s;
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

// fmtDay shows only the date.
export function fmtDay(s) {
  if (!s) return '';
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) return s;
  return d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

// switchButton is an on/off switch: a button with role=switch whose
// aria-checked carries the state.
export function switchButton(label, on, onToggle, { disabled = false } = {}) {
  const btn = h('button', {
    type: 'button', role: 'switch', class: 'switch', 'aria-checked': on ? 'true' : 'false', 'aria-label': label, disabled,
  }, h('span', { class: 'knob', 'aria-hidden': 'true' }));
  btn.addEventListener('click', async () => {
    const next = btn.getAttribute('aria-checked') !== 'true';
    btn.disabled = true;
    try {
      if (await onToggle(next)) btn.setAttribute('aria-checked', next ? 'true' : 'false');
    } finally {
      btn.disabled = disabled;
    }
  });
  return btn;
}

// debounce delays fn until calls stop for ms.
export function debounce(fn, ms) {
  let t;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}
