// A project's flags: one on/off switch per environment, filters that apply
// as you type, pages of 50 rows, and the new-flag form.
import { h, mount, field, checkbox, select, alertBox, setAlert, showError, modal, confirm, status, fmtDate, fmtDay, switchButton, debounce } from '../dom.js';
import { api, enc, cached, lastSeen } from '../api.js';
import { projectCan, navigate } from '../app.js';
import { changeRequestEnvs, propose } from '../proposals.js';

const pageSize = 50;

export async function render(main, [projectId]) {
  const [project, list, envs, types, can, crEnvs] = await Promise.all([
    api('GET', `/api/admin/projects/${enc(projectId)}`),
    api('GET', `/api/admin/projects/${enc(projectId)}/features`),
    cached('/api/admin/environments'),
    cached('/api/admin/feature-types'),
    projectCan(projectId),
    changeRequestEnvs(projectId),
  ]);
  // can follows the project roles too: a project Owner or Member creates
  // and switches flags here.
  const mayCreate = can('CREATE_FEATURE');
  const envType = new Map((envs.environments || []).map((e) => [e.name, e]));
  const envOrder = (e) => (envType.get(e) ? envType.get(e).sortOrder : 0);
  const projectEnvs = (project.environments || []).map((e) => e.environment)
    .filter((e) => envType.has(e)).sort((a, b) => envOrder(a) - envOrder(b) || a.localeCompare(b));
  const features = list.features || [];
  const typeNames = (types.types || []).map((t) => [t.id, t.name]);

  const alert = alertBox();
  const search = h('input', { type: 'search', id: 'flag-search', placeholder: 'Name, description or tag', autocomplete: 'off' });
  const typeSel = select([['', 'Any type'], ...typeNames], '', { 'aria-label': 'Type' });
  const stateSel = select([['', 'Any state'], ['on', 'On in some environment'], ['off', 'Off everywhere']], '', { 'aria-label': 'State' });
  const tagNames = [...new Set(features.flatMap((f) => (f.tags || []).map((t) => `${t.type}:${t.value}`)))].sort();
  const tagSel = select([['', 'Any tag'], ...tagNames.map((t) => [t, t])], '', { 'aria-label': 'Tag' });
  const staleSel = select([['', 'Stale or not'], ['stale', 'Stale only'], ['fresh', 'Not stale']], '', { 'aria-label': 'Stale' });
  const sortSel = select([['name', 'Name'], ['created', 'Newest first'], ['seen', 'Last seen']], 'name', { 'aria-label': 'Sort by' });
  const counter = h('p', { class: 'count', 'aria-live': 'polite' });
  const tbody = h('tbody');
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' });
  let page = 0;

  const matches = () => {
    const q = search.value.trim().toLowerCase();
    const out = features.filter((f) => {
      if (typeSel.value && f.type !== typeSel.value) return false;
      const on = (f.environments || []).some((e) => e.enabled);
      if (stateSel.value === 'on' && !on) return false;
      if (stateSel.value === 'off' && on) return false;
      if (tagSel.value && !(f.tags || []).some((t) => `${t.type}:${t.value}` === tagSel.value)) return false;
      if (staleSel.value === 'stale' && !f.stale) return false;
      if (staleSel.value === 'fresh' && f.stale) return false;
      if (!q) return true;
      return f.name.toLowerCase().includes(q) || (f.description || '').toLowerCase().includes(q) ||
        (f.tags || []).some((t) => `${t.type}:${t.value}`.toLowerCase().includes(q));
    });
    const by = {
      name: (a, b) => a.name.localeCompare(b.name),
      created: (a, b) => (b.createdAt || '').localeCompare(a.createdAt || ''),
      seen: (a, b) => (lastSeen(b) || '').localeCompare(lastSeen(a) || ''),
    }[sortSel.value];
    return out.sort(by);
  };

  const toggle = async (f, env, on) => {
    setAlert(alert, '');
    if (crEnvs.has(env)) {
      // Change requests are required there: the switch proposes, and the
      // flag changes when the request is applied.
      try {
        status(await propose(projectId, env, { feature: f.name, action: 'updateEnabled', payload: { enabled: on } },
          `turn ${f.name} ${on ? 'on' : 'off'} in ${env}`));
      } catch (err) {
        setAlert(alert, err.message);
      }
      return false;
    }
    const e = envType.get(env);
    if (e && e.type === 'production' && !await confirm(`Turn ${on ? 'on' : 'off'} in ${env}`,
      `${env} is a production environment. Turn ${f.name} ${on ? 'on' : 'off'} there?`, on ? 'Turn on' : 'Turn off')) return false;
    try {
      await api('POST', `/api/admin/projects/${enc(projectId)}/features/${enc(f.name)}/environments/${enc(env)}/${on ? 'on' : 'off'}`);
      const fe = (f.environments || []).find((x) => x.name === env);
      if (fe) fe.enabled = on;
      status(`${f.name} is ${on ? 'on' : 'off'} in ${env}`);
      return true;
    } catch (err) {
      setAlert(alert, err.message);
      return false;
    }
  };

  const row = (f) => {
    const byEnv = new Map((f.environments || []).map((e) => [e.name, e]));
    return h('tr', { 'data-flag': f.name },
      h('th', { scope: 'row' },
        h('a', { href: `/projects/${enc(projectId)}/features/${enc(f.name)}` }, f.name),
        f.description ? h('span', { class: 'desc' }, f.description) : null),
      h('td', null, f.type),
      h('td', null, (f.tags || []).map((t) => h('span', { class: 'tag' }, `${t.type}:${t.value}`))),
      h('td', null, f.stale ? h('span', { class: 'badge stale' }, 'Stale') : ''),
      h('td', null, fmtDay(f.createdAt)),
      h('td', null, lastSeen(f) ? fmtDate(lastSeen(f)) : h('span', { class: 'muted' }, 'Never')),
      projectEnvs.map((env) => {
        const fe = byEnv.get(env);
        return h('td', { class: 'switch-cell' }, fe
          ? switchButton(`Toggle ${f.name} in ${env}`, fe.enabled, (on) => toggle(f, env, on), { disabled: !can('UPDATE_FEATURE_ENVIRONMENT') })
          : '');
      }));
  };

  const draw = () => {
    const rows = matches();
    const pages = Math.max(1, Math.ceil(rows.length / pageSize));
    page = Math.min(page, pages - 1);
    const shown = rows.slice(page * pageSize, (page + 1) * pageSize);
    mount(tbody, shown.length ? shown.map(row) : h('tr', null, h('td', { colspan: 6 + projectEnvs.length, class: 'empty' },
      features.length ? 'No flag matches the filters.' : 'This project has no flags yet.')));
    counter.textContent = rows.length === features.length
      ? `${features.length} flag${features.length === 1 ? '' : 's'}`
      : `${rows.length} of ${features.length} flags match`;
    mount(pager, pages > 1 ? [
      h('button', { type: 'button', disabled: page === 0, onclick: () => { page -= 1; draw(); } }, 'Previous page'),
      h('span', null, `Page ${page + 1} of ${pages}`),
      h('button', { type: 'button', disabled: page >= pages - 1, onclick: () => { page += 1; draw(); } }, 'Next page'),
    ] : null);
  };
  const redraw = () => { page = 0; draw(); };
  search.addEventListener('input', debounce(redraw, 80));
  for (const s of [typeSel, tagSel, stateSel, staleSel, sortSel]) s.addEventListener('change', redraw);

  mount(main,
    h('p', { class: 'crumbs' }, h('a', { href: '/projects' }, 'Projects'), ' / '),
    h('div', { class: 'page-head' },
      h('h1', null, project.name),
      h('div', { class: 'row-actions' },
        h('a', { class: 'button', href: `/projects/${enc(projectId)}/health` }, 'Health and lead time'),
        h('a', { class: 'button', href: `/projects/${enc(projectId)}/access` }, 'Access'),
        h('a', { class: 'button', href: `/projects/${enc(projectId)}/change-requests` }, 'Change requests'),
        can('UPDATE_PROJECT') && h('button', { type: 'button', onclick: async () => {
        if (await projectEnvironments(projectId, envs.environments || [], projectEnvs)) navigate(location.pathname, { replace: true });
      } }, 'Environments'),
      mayCreate && h('button', { type: 'button', class: 'primary', onclick: async () => {
        const created = await flagForm(projectId, typeNames);
        if (created) navigate(`/projects/${enc(projectId)}/features/${enc(created.name)}`);
      } }, 'New flag'))),
    project.description ? h('p', { class: 'lead' }, project.description) : null,
    h('div', { class: 'filters', role: 'search' },
      h('div', { class: 'field grow' }, h('label', { for: search.id }, 'Search flags'), search),
      h('div', { class: 'field' }, h('label', { for: typeSel.id }, 'Type'), typeSel),
      h('div', { class: 'field' }, h('label', { for: tagSel.id }, 'Tag'), tagSel),
      h('div', { class: 'field' }, h('label', { for: stateSel.id }, 'State'), stateSel),
      h('div', { class: 'field' }, h('label', { for: staleSel.id }, 'Stale'), staleSel),
      h('div', { class: 'field' }, h('label', { for: sortSel.id }, 'Sort by'), sortSel)),
    counter, alert,
    h('div', { class: 'table-wrap' }, h('table', { class: 'list flags' },
      h('caption', { class: 'sr-only' }, `Flags of ${project.name}`),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Type'), h('th', { scope: 'col' }, 'Tags'),
        h('th', { scope: 'col' }, 'Stale'), h('th', { scope: 'col' }, 'Created'), h('th', { scope: 'col' }, 'Last seen'),
        projectEnvs.map((env) => h('th', { scope: 'col', class: 'env' }, env,
          envType.get(env).type === 'production' ? h('span', { class: 'badge prod' }, 'prod') : null,
          crEnvs.has(env) ? h('span', { class: 'badge cr', title: 'Switches here propose the change in a change request' }, 'change requests') : null)))),
      tbody)),
    pager);
  draw();
}

// flagForm creates a flag; the name is checked with the API as it is typed.
function flagForm(projectId, typeNames) {
  return modal('New flag', (close) => {
    const name = field('Name', h('input', { name: 'name', required: true, autocomplete: 'off', spellcheck: 'false' }),
      { name: 'name', hint: 'Letters, digits and - _ . ~; unique across projects.' });
    const type = field('Type', select(typeNames, 'release', { name: 'type' }), { name: 'type' });
    const desc = field('Description', h('textarea', { name: 'description', rows: 3 }), { name: 'description' });
    const impression = checkbox('Emit impression events', false, { name: 'impressionData' });
    const alert = alertBox();
    const fields = [name, type, desc];
    let seq = 0;
    const validate = debounce(async () => {
      const value = name.control.value.trim();
      const mine = ++seq;
      if (!value) {
        name.setError('');
        return;
      }
      try {
        await api('POST', '/api/admin/features/validate', { name: value });
        if (mine === seq) name.setError('');
      } catch (err) {
        if (mine === seq) name.setError(err.message);
      }
    }, 200);
    name.control.addEventListener('input', validate);
    const form = h('form', { novalidate: true }, name.el, type.el, desc.el, impression.el, alert,
      h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, 'Create flag'),
        h('button', { type: 'button', onclick: () => close() }, 'Cancel')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        const f = await api('POST', `/api/admin/projects/${enc(projectId)}/features`, {
          name: name.control.value.trim(), type: type.control.value, description: desc.control.value,
          impressionData: impression.control.checked,
        });
        status(`Flag ${f.name} created`);
        close(f);
      } catch (err) {
        showError(err, fields, alert);
      }
    });
    return form;
  });
}

// projectEnvironments turns environments on or off for the project; each
// change is saved at once. It resolves true when something changed.
function projectEnvironments(projectId, all, enabled) {
  let changed = false;
  return modal('Environments of this project', (close) => {
    const alert = alertBox();
    const boxes = all.map((e) => {
      const c = checkbox(`${e.name} (${e.type})`, enabled.includes(e.name), { name: `env-${e.name}` });
      c.control.addEventListener('change', async () => {
        setAlert(alert, '');
        c.control.disabled = true;
        try {
          if (c.control.checked) await api('POST', `/api/admin/projects/${enc(projectId)}/environments`, { environment: e.name });
          else await api('DELETE', `/api/admin/projects/${enc(projectId)}/environments/${enc(e.name)}`);
          changed = true;
          status(`${e.name} ${c.control.checked ? 'added to' : 'removed from'} the project`);
        } catch (err) {
          c.control.checked = !c.control.checked;
          setAlert(alert, err.message);
        } finally {
          c.control.disabled = false;
        }
      });
      return c.el;
    });
    return [h('p', { class: 'hint' }, 'Flags of the project have a switch and strategies in each environment turned on here.'),
      boxes, alert, h('div', { class: 'actions' }, h('button', { type: 'button', class: 'primary', onclick: () => close(changed) }, 'Done'))];
  });
}
