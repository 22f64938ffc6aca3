// Instance settings (Admins only): single sign-on with SAML, the origins
// browser SDKs may call the frontend API from (CORS), and what this
// instance holds.
import { h, mount, field, checkbox, select, alertBox, showError, status, fmtDate } from '../dom.js';
import { api } from '../api.js';

export async function render(main) {
  // The statistics count everything the instance holds, which takes a
  // while on large instances: the forms do not wait for them.
  const stats = api('GET', '/api/admin/instance-admin/statistics');
  stats.catch(() => {});
  const [saml, ui, info] = await Promise.all([
    api('GET', '/api/admin/auth/saml/settings'),
    api('GET', '/api/admin/ui-config'),
    api('GET', '/api/admin/instance-admin/info'),
  ]);
  mount(main,
    h('div', { class: 'page-head' }, h('h1', null, 'Instance settings')),
    h('p', { class: 'lead' }, 'Settings that apply to the whole instance. Each change is recorded in the event log.'),
    samlSection(saml),
    corsSection(ui.frontendApiOrigins || []),
    infoSection(ui, stats, info));
}

// section is a titled part of the page.
function section(id, title, ...children) {
  return h('section', { class: 'settings', 'aria-labelledby': id }, h('h2', { id }, title), children);
}

// samlSection is the form of the SAML settings, as saml.go accepts them.
function samlSection(set) {
  const enabled = checkbox('Enable sign-in with SAML', !!set.enabled, { name: 'enabled' });
  const text = (label, name, hint, attrs = {}) => field(label, h('input', { name, value: set[name] || '', autocomplete: 'off', ...attrs }), { name, hint });
  const area = (label, name, hint) => field(label, h('textarea', { name, rows: 5, spellcheck: 'false' }, set[name] || ''), { name, hint });
  const entityId = text('Identity provider entity id', 'entityId', 'The issuer the identity provider names in its answers.');
  const signOnUrl = text('Single sign-on URL', 'signOnUrl', 'Where browsers are sent to sign in (HTTP-Redirect binding).', { type: 'url' });
  const certificate = area('Identity provider certificate', 'certificate', 'The X.509 certificate that signs its answers, PEM or base64.');
  const signOutUrl = text('Sign-out URL', 'signOutUrl', 'Optional.', { type: 'url' });
  const spCertificate = area('Service provider certificate', 'spCertificate', 'Optional: a certificate the identity provider expects of this server.');
  const autoCreate = checkbox('Create unknown people when they first sign in', !!set.autoCreate, { name: 'autoCreate' });
  const emailDomains = text('E-mail domains', 'emailDomains', 'Comma-separated domains whose people may be created, such as example.com.');
  const role = field('Root role of created people', select([['Viewer', 'Viewer'], ['Editor', 'Editor'], ['Admin', 'Admin']], set.defaultRootRole || 'Viewer', { name: 'defaultRootRole' }), { name: 'defaultRootRole' });
  const fields = [entityId, signOnUrl, certificate, signOutUrl, spCertificate, emailDomains, role];
  const alert = alertBox();
  const form = h('form', { class: 'saml-settings', novalidate: true },
    enabled.el, fields.slice(0, 5).map((f) => f.el), autoCreate.el, emailDomains.el, role.el, alert,
    h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Save SAML settings'),
      h('a', { class: 'button', href: '/auth/saml/login', target: '_blank', rel: 'noopener' }, 'Test sign-in')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = { enabled: enabled.control.checked, autoCreate: autoCreate.control.checked };
    for (const f of fields) body[f.name] = f.control.value;
    try {
      await api('POST', '/api/admin/auth/saml/settings', body);
      for (const f of fields) f.setError('');
      alert.hidden = true;
      status('SAML settings saved');
    } catch (err) {
      showError(err, fields, alert);
    }
  });
  return section('saml-head', 'Single sign-on (SAML)',
    h('p', { class: 'muted' }, 'Give the identity provider this server\'s metadata: ',
      h('a', { href: '/auth/saml/metadata' }, '/auth/saml/metadata'), '. "Test sign-in" opens a SAML sign-in in a new tab once the settings are saved and enabled.'),
    form);
}

// corsSection edits the frontend API's allowed origins, one per line.
function corsSection(origins) {
  const list = field('Allowed origins', h('textarea', { name: 'frontendApiOrigins', rows: 4, spellcheck: 'false' }, origins.join('\n')),
    { name: 'frontendApiOrigins', hint: 'One per line, as browsers send them: https://app.example.com or http://localhost:3000. * or an empty list allows any origin.' });
  const alert = alertBox();
  const form = h('form', { class: 'cors-settings', novalidate: true }, list.el, alert,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Save origins')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const lines = list.control.value.split('\n').map((s) => s.trim()).filter(Boolean);
    try {
      await api('POST', '/api/admin/ui-config/cors', { frontendApiOrigins: lines });
      const saved = await api('GET', '/api/admin/ui-config');
      list.control.value = (saved.frontendApiOrigins || []).join('\n');
      list.setError('');
      alert.hidden = true;
      status('Origins saved');
    } catch (err) {
      // The API names the bad line as frontendApiOrigins[i].
      if (err.path && err.path.startsWith('frontendApiOrigins')) {
        list.setError(err.message);
        list.control.focus();
      } else {
        showError(err, [list], alert);
      }
    }
  });
  return section('cors-head', 'Frontend API origins (CORS)',
    h('p', { class: 'muted' }, 'Browser apps on these origins may call the frontend API (/api/frontend).'), form);
}

// figures are the counts of the statistics answer shown, in order.
const figures = [
  ['users', 'Users'], ['featureToggles', 'Feature flags'], ['projects', 'Projects'], ['environments', 'Environments'],
  ['segments', 'Segments'], ['groups', 'Groups'], ['roles', 'Roles'], ['contextFields', 'Context fields'], ['strategies', 'Strategy types'],
];

const databases = { sqlite: 'SQLite (embedded)', postgres: 'PostgreSQL' };

// infoSection shows the version, the database and, once the statistics
// promise settles, their counts.
function infoSection(ui, statsPromise, info) {
  const counts = h('div', { class: 'counts', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Counting…'));
  statsPromise.then((stats) => {
    const tokens = stats.apiTokens || {};
    counts.removeAttribute('aria-busy');
    mount(counts,
      h('dl', { class: 'meta' },
        h('dt', null, 'Instance id'), h('dd', { 'data-info': 'instanceId' }, stats.instanceId),
        h('dt', null, 'SAML sign-in'), h('dd', { 'data-info': 'saml' }, stats.SAMLenabled ? 'On' : 'Off'),
        h('dt', null, 'Counted at'), h('dd', null, fmtDate(stats.timestamp))),
      h('dl', { class: 'figures' },
        figures.map(([key, label]) => h('div', { class: 'figure', 'data-stat': key }, h('dt', null, label), h('dd', null, String(stats[key] ?? 0)))),
        h('div', { class: 'figure', 'data-stat': 'apiTokens' }, h('dt', null, 'API tokens'),
          h('dd', null, String(Object.values(tokens).reduce((a, b) => a + b, 0))))));
  }, (err) => {
    counts.removeAttribute('aria-busy');
    mount(counts, h('p', { class: 'alert', role: 'alert' }, `The statistics could not be read: ${err.message}`));
  });
  return section('info-head', 'About this instance',
    h('dl', { class: 'meta' },
      h('dt', null, 'Version'), h('dd', { 'data-info': 'version' }, info.version || ui.version),
      h('dt', null, 'Database'), h('dd', { 'data-info': 'database' }, databases[info.database] || info.database),
      h('dt', null, 'Address'), h('dd', { 'data-info': 'url' }, ui.unleashUrl)),
    counts,
    h('p', null, h('a', { href: '/api/admin/instance-admin/statistics/csv', download: 'statistics.csv' }, 'Download the statistics as CSV')));
}
