// Import and export: a project's flags in one environment as Unleash's
// export document (a JSON file), and such a document checked, then
// imported, into a project and environment.
import { h, mount, field, select, alertBox, setAlert, showError, status } from '../dom.js';
import { api } from '../api.js';

export async function render(main) {
  const [projects, envs] = await Promise.all([api('GET', '/api/admin/projects'), api('GET', '/api/admin/environments')]);
  const projectOptions = (projects.projects || []).map((p) => [p.id, p.name || p.id]);
  const envOptions = (envs.environments || []).map((e) => [e.name, e.name]);
  mount(main,
    h('div', { class: 'page-head' }, h('h1', null, 'Import and export')),
    h('p', { class: 'lead' }, 'Move flags between projects or instances (Signalbox or Unleash): export a project\'s flags with their configuration in one environment, then import the file elsewhere.'),
    exportSection(projectOptions, envOptions),
    importSection(projectOptions, envOptions));
}

function section(id, title, ...children) {
  return h('section', { class: 'settings', 'aria-labelledby': id }, h('h2', { id }, title), children);
}

// exportSection exports a project's active flags and offers the document
// as a file.
function exportSection(projectOptions, envOptions) {
  const project = field('Project', select(projectOptions, 'default', { name: 'exportProject' }), { name: 'project' });
  const env = field('Environment', select(envOptions, envOptions.length ? envOptions[0][0] : '', { name: 'exportEnvironment' }), { name: 'environment' });
  const alert = alertBox();
  const result = h('div', { class: 'export-result', 'aria-live': 'polite' });
  let url = null;
  const form = h('form', { class: 'export', novalidate: true }, h('div', { class: 'row' }, project.el, env.el), alert,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Export')), result);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    mount(result);
    try {
      const doc = await api('POST', '/api/admin/features-batch/export',
        { project: project.control.value, environment: env.control.value, downloadFile: true });
      if (url) URL.revokeObjectURL(url);
      url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }));
      const name = `export-${project.control.value}-${env.control.value}.json`;
      const n = (doc.features || []).length;
      mount(result, h('p', null, `${n} ${n === 1 ? 'flag' : 'flags'} exported. `,
        h('a', { class: 'button', href: url, download: name }, `Download ${name}`)));
      status('Exported');
    } catch (err) {
      showError(err, [project, env], alert);
    }
  });
  return section('export-head', 'Export', form);
}

// importSection reads a document from a file or pasted text, validates it
// against a project and environment, and imports it.
function importSection(projectOptions, envOptions) {
  const project = field('Import into project', select(projectOptions, 'default', { name: 'importProject' }), { name: 'project' });
  const env = field('Environment', select(envOptions, envOptions.length ? envOptions[0][0] : '', { name: 'importEnvironment' }), { name: 'environment' });
  const file = field('Export file', h('input', { type: 'file', name: 'file', accept: '.json,application/json' }), { name: 'file' });
  const text = field('Or paste the document', h('textarea', { name: 'document', rows: 6, spellcheck: 'false' }), { name: 'data' });
  const fields = [project, env, file, text];
  const alert = alertBox();
  const report = h('div', { class: 'import-report', 'aria-live': 'polite' });
  const importButton = h('button', { type: 'button', class: 'primary', disabled: true }, 'Import');
  let checked = null; // the request validated without errors

  file.control.addEventListener('change', async () => {
    const f = file.control.files[0];
    if (f) text.control.value = await f.text();
    reset();
  });
  for (const f of [project, env, text]) f.control.addEventListener('input', reset);
  for (const f of [project, env]) f.control.addEventListener('change', reset);
  function reset() {
    checked = null;
    importButton.disabled = true;
  }

  // request builds the body of validate and import; null when the text
  // is not JSON.
  const request = () => {
    let data;
    try {
      data = JSON.parse(text.control.value);
    } catch (e) {
      text.setError(`This is not JSON: ${e.message}`);
      text.control.focus();
      return null;
    }
    text.setError('');
    return { project: project.control.value, environment: env.control.value, data };
  };

  const validateButton = h('button', { type: 'submit' }, 'Validate');
  const form = h('form', { class: 'import', novalidate: true },
    h('div', { class: 'row' }, project.el, env.el), file.el, text.el, alert,
    h('div', { class: 'actions' }, validateButton, importButton), report);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    reset();
    setAlert(alert, '');
    mount(report);
    const body = request();
    if (!body) return;
    try {
      const rep = await api('POST', '/api/admin/features-batch/validate', body);
      mount(report, findings(rep));
      if (!(rep.errors || []).length && !(rep.permissions || []).length) {
        checked = body;
        importButton.disabled = false;
      }
    } catch (err) {
      showError(err, fields, alert);
    }
  });
  importButton.addEventListener('click', async () => {
    if (!checked) return;
    importButton.disabled = true;
    try {
      await api('POST', '/api/admin/features-batch/import', checked);
      const n = (checked.data.features || []).length;
      mount(report, h('p', { class: 'notice', 'data-result': 'imported' },
        `Imported ${n} ${n === 1 ? 'flag' : 'flags'} into ${checked.project} (${checked.environment}).`));
      status('Imported');
      checked = null;
    } catch (err) {
      setAlert(alert, err.message);
    }
  });
  return section('import-head', 'Import',
    h('p', { class: 'muted' }, 'Validate first: it changes nothing and lists what the import would refuse or overwrite. Then import.'), form);
}

// findings lists a validation's errors, missing permissions and warnings.
function findings(rep) {
  const groups = [
    ['errors', 'Errors', 'These must be fixed before importing.'],
    ['permissions', 'Missing permissions', 'You need these to import.'],
    ['warnings', 'Warnings', 'The import can go ahead; check these first.'],
  ];
  const parts = groups.filter(([key]) => (rep[key] || []).length).map(([key, title, text]) => h('div', { class: `findings ${key}`, 'data-findings': key },
    h('h3', null, title), h('p', { class: 'muted' }, text),
    h('ul', null, rep[key].map((it) => h('li', null, it.message, ' ', h('strong', null, (it.affectedItems || []).join(', ')))))));
  if (!parts.length) return h('p', { class: 'notice', 'data-findings': 'none' }, 'No errors or warnings: ready to import.');
  return parts;
}
