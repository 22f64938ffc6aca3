// API tokens: list, create (type, projects, environment; the secret is
// shown once, with a copy button), delete. The API decides who may manage
// which kind; controls are hidden only for users who may manage none.
import { h, mount, field, select, alertBox, setAlert, showError, modal, confirm, status, fmtDate } from '../dom.js';
import { api } from '../api.js';
import { can } from '../app.js';

export async function render(main) {
  const alert = alertBox();
  const body = h('div');
  const load = async () => {
    const data = await api('GET', '/api/admin/api-tokens');
    const tokens = data.tokens || [];
    mount(body, tokens.length ? h('table', { class: 'list' },
      h('caption', { class: 'sr-only' }, 'API tokens'),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Type'), h('th', { scope: 'col' }, 'Projects'),
        h('th', { scope: 'col' }, 'Environment'), h('th', { scope: 'col' }, 'Token'), h('th', { scope: 'col' }, 'Created'),
        h('th', { scope: 'col' }, 'Last seen'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, tokens.map((t) => h('tr', { 'data-token': t.secret },
        h('th', { scope: 'row' }, t.tokenName),
        h('td', null, t.type),
        h('td', null, (t.projects || []).join(', ') || '*'),
        h('td', null, t.environment),
        h('td', null, h('code', null, t.secret || '')),
        h('td', null, fmtDate(t.createdAt)),
        h('td', null, t.seenAt ? fmtDate(t.seenAt) : 'never'),
        h('td', { class: 'row-actions' }, h('button', { type: 'button', class: 'danger', 'aria-label': `Delete token ${t.tokenName}`, onclick: async () => {
          setAlert(alert, '');
          if (!await confirm('Delete token', `Delete the token ${t.tokenName}? SDKs using it stop working at once.`, 'Delete', { danger: true })) return;
          try {
            await api('DELETE', `/api/admin/api-tokens/${encodeURIComponent(t.secret)}`);
            status(`Token ${t.tokenName} deleted`);
            await load();
          } catch (err) {
            setAlert(alert, err.message);
          }
        } }, 'Delete')))))) : h('p', { class: 'muted' }, 'No API tokens yet.'));
  };
  mount(main,
    h('div', { class: 'page-head' }, h('h1', null, 'API tokens'),
      h('button', { type: 'button', class: 'primary', onclick: async () => { if (await tokenForm()) await load(); } }, 'New token')),
    h('p', { class: 'lead' }, 'Client tokens are for server-side SDKs and proxies, frontend tokens for browser and mobile SDKs, admin tokens for scripts that use the admin API.'),
    alert, body);
  await load();
}

// tokenForm creates a token and shows its secret once; it resolves true
// when a token was made.
async function tokenForm() {
  const [envs, projects] = await Promise.all([api('GET', '/api/admin/environments'), api('GET', '/api/admin/projects')]);
  const envNames = (envs.environments || []).map((e) => e.name);
  const projectIDs = (projects.projects || []).map((p) => p.id);
  return modal('New API token', (close) => {
    const name = field('Name', h('input', { name: 'tokenName', autocomplete: 'off' }), { name: 'tokenName' });
    const type = field('Type', select([['client', 'Client (server-side SDK)'], ['frontend', 'Frontend (browser SDK)'], can('ADMIN') ? ['admin', 'Admin'] : null].filter(Boolean), 'client', { name: 'type' }), { name: 'type' });
    const env = field('Environment', select(envNames.map((n) => [n, n]), envNames[0], { name: 'environment' }), { name: 'environment' });
    // Only Admins may make tokens for every project.
    const all = h('input', { type: 'checkbox', name: 'all-projects', checked: can('ADMIN') });
    const boxes = projectIDs.map((id) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: `project-${id}`, value: id, disabled: all.checked }), ` ${id}`));
    all.addEventListener('change', () => boxes.forEach((b) => { b.firstChild.disabled = all.checked; }));
    const projectSet = h('fieldset', { class: 'projects' }, h('legend', null, 'Projects'),
      h('label', { class: 'check' }, all, ' All projects, also those made later'), boxes);
    const envBox = h('div', null, env.el);
    type.control.addEventListener('change', () => {
      const admin = type.control.value === 'admin';
      envBox.hidden = admin;
      projectSet.hidden = admin;
    });
    const alert = alertBox();
    const result = h('div');
    const form = h('form', { novalidate: true }, name.el, type.el, envBox, projectSet, alert, result,
      h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, 'Create token'),
        h('button', { type: 'button', class: 'cancel', onclick: () => close(false) }, 'Cancel')));
    let made = false;
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (made) { close(true); return; }
      const body = { tokenName: name.control.value.trim(), type: type.control.value };
      if (body.type !== 'admin') {
        body.environment = env.control.value;
        body.projects = all.checked ? ['*'] : boxes.map((b) => b.firstChild).filter((c) => c.checked).map((c) => c.value);
      }
      try {
        const tok = await api('POST', '/api/admin/api-tokens', body);
        made = true;
        secretShown(result, tok.secret, 'Copy this token now: it is not shown again.');
        form.querySelector('button[type=submit]').textContent = 'Done';
        form.querySelector('button.cancel').hidden = true;
        [name.control, type.control, env.control, all, ...boxes.map((b) => b.firstChild)].forEach((c) => { c.disabled = true; });
      } catch (err) {
        showError(err, [name, type, env], alert);
      }
    });
    return form;
  }, { wide: true });
}

// secretShown puts a secret with a copy button into box.
export function secretShown(box, secret, note) {
  const out = h('output', { class: 'secret', name: 'secret' }, secret);
  const copy = h('button', { type: 'button', class: 'small', onclick: async () => {
    try {
      await navigator.clipboard.writeText(secret);
      status('Copied');
    } catch (e) {
      // Clipboard access may be refused; select the text instead.
      const range = document.createRange();
      range.selectNodeContents(out);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      status('Select and copy the token');
    }
  } }, 'Copy');
  mount(box, h('div', { class: 'notice', role: 'status' }, h('p', null, note), h('p', null, out, ' ', copy)));
}
