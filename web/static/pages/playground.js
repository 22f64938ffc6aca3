// The playground: evaluate every flag of a project (or all) for a context
// and see why each is on or off: which strategy matched, which constraint
// failed. The server explains; this page only shows it.
import { h, mount, field, select, alertBox, setAlert, showError } from '../dom.js';
import { api, cached } from '../api.js';

export async function render(main, params, query) {
  const [envs, projects] = await Promise.all([cached('/api/admin/environments'), api('GET', '/api/admin/projects')]);
  const env = field('Environment', select((envs.environments || []).map((e) => [e.name, e.name]), query.get('environment') || 'development', { name: 'environment' }), { name: 'environment' });
  const project = field('Project', select([['*', 'All projects'], ...(projects.projects || []).map((p) => [p.id, p.name])], query.get('project') || '*', { name: 'projects' }), { name: 'projects' });
  const appName = field('App name', h('input', { name: 'appName', value: 'playground', autocomplete: 'off' }), { name: 'context.appName' });
  const userId = field('User id', h('input', { name: 'userId', autocomplete: 'off' }), { name: 'context.userId' });
  const sessionId = field('Session id', h('input', { name: 'sessionId', autocomplete: 'off' }), { name: 'context.sessionId' });
  const remote = field('Remote address', h('input', { name: 'remoteAddress', autocomplete: 'off' }), { name: 'context.remoteAddress' });
  const props = field('Properties', h('textarea', { name: 'properties', rows: 3, spellcheck: 'false', placeholder: 'country=no\nplan=pro' }),
    { name: 'context.properties', hint: 'One name=value per line.' });
  const fields = [env, project, appName, userId, sessionId, remote, props];
  const alert = alertBox();
  const results = h('div');
  const form = h('form', { novalidate: true, class: 'playground' },
    h('div', { class: 'row' }, env.el, project.el, appName.el),
    h('div', { class: 'row' }, userId.el, sessionId.el, remote.el),
    props.el, alert,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Evaluate')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    for (const f of fields) f.setError('');
    setAlert(alert, '');
    const properties = {};
    for (const line of props.control.value.split('\n')) {
      if (!line.trim()) continue;
      const at = line.indexOf('=');
      if (at < 1) {
        props.setError(`"${line.trim()}" is not name=value`);
        props.control.focus();
        return;
      }
      properties[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    const context = { appName: appName.control.value.trim(), properties };
    for (const [k, f] of [['userId', userId], ['sessionId', sessionId], ['remoteAddress', remote]]) {
      if (f.control.value.trim()) context[k] = f.control.value.trim();
    }
    const body = { environment: env.control.value, projects: project.control.value === '*' ? '*' : [project.control.value], context };
    try {
      const res = await api('POST', '/api/admin/playground', body);
      showResults(results, res.features || []);
    } catch (err) {
      showError(err, fields, alert);
    }
  });
  mount(main, h('h1', null, 'Playground'),
    h('p', { class: 'lead' }, 'Enter a context to see, for every flag, whether it is on, which variant it gives, and why.'),
    form, results);
}

function showResults(box, features) {
  const filter = h('input', { type: 'search', id: 'playground-filter', autocomplete: 'off' });
  const list = h('div');
  const draw = () => {
    const q = filter.value.trim().toLowerCase();
    mount(list, features.filter((f) => !q || f.name.toLowerCase().includes(q)).map(featureResult));
  };
  filter.addEventListener('input', draw);
  mount(box, h('h2', null, `Results (${features.length} flags)`),
    h('div', { class: 'field' }, h('label', { for: filter.id }, 'Filter results'), filter), list);
  draw();
}

function featureResult(f) {
  const on = f.isEnabled;
  const strategies = (f.strategies && f.strategies.data) || [];
  let why;
  if (!f.isEnabledInCurrentEnvironment) why = 'The flag is off in this environment.';
  else if (f.hasUnsatisfiedDependency) why = 'A parent flag it depends on is not in the required state.';
  else if (!strategies.length) why = 'No strategy: on for everyone.';
  else {
    const hit = strategies.find((s) => s.result && s.result.enabled === true);
    why = hit ? `Strategy ${hit.title || hit.name} matched.` : (f.strategies.result === 'unknown' ? 'A strategy could not be evaluated here.' : 'No strategy matched.');
  }
  return h('details', { class: 'event env-card', 'data-flag': f.name },
    h('summary', { class: 'body' },
      h('strong', null, f.name), ' ',
      h('span', { class: `badge ${on ? 'on' : 'off'}` }, on ? 'On' : 'Off'),
      f.variant && f.variant.name && f.variant.name !== 'disabled' ? h('span', { class: 'tag' }, `variant ${f.variant.name}`) : null,
      h('span', { class: 'desc' }, why)),
    h('div', { class: 'body' }, strategies.length ? h('ol', null, strategies.map((s) => h('li', null,
      h('strong', null, s.title || s.name), ' — ',
      s.disabled ? 'disabled, not evaluated' : resultWords(s.result),
      (s.segments || []).length ? h('ul', null, s.segments.map((sg) => h('li', null, `segment ${sg.name}: ${sg.result ? 'matches' : 'does not match'}`,
        constraintList(sg.constraints)))) : null,
      constraintList(s.constraints)))) : h('p', { class: 'muted' }, 'No strategies.')));
}

function resultWords(r) {
  if (!r) return '';
  if (r.evaluationStatus === 'complete') return r.enabled ? 'matched' : 'did not match';
  return r.enabled === false ? 'does not match' : 'cannot be evaluated here (custom strategy)';
}

function constraintList(cs) {
  if (!cs || !cs.length) return null;
  return h('ul', null, cs.map((c) => h('li', { class: c.result ? 'ok' : 'failed' },
    `${c.result ? '✓' : '✗'} ${c.contextName} ${c.inverted ? 'NOT ' : ''}${c.operator} ${(c.values && c.values.length ? c.values.join(', ') : c.value) || ''}${c.caseInsensitive ? ' (ignoring case)' : ''}`)));
}
