// One flag: per environment its switch and its strategies in order, with
// the strategy editor; stale, archive.
import { h, mount, field, checkbox, select, alertBox, setAlert, showError, modal, confirm, status, fmtDate, switchButton } from '../dom.js';
import { api, enc, cached, lastSeen } from '../api.js';
import { projectCan, navigate } from '../app.js';
import { summary, editStrategy } from '../strategy.js';
import { eventItem } from '../events.js';
import { editVariants } from '../variants.js';
import { renderUsage } from '../usage.js';
import { changeRequestEnvs, drawBanner, propose } from '../proposals.js';

export async function render(main, [projectId, name]) {
  const path = `/api/admin/projects/${enc(projectId)}/features/${enc(name)}`;
  // can follows the user's roles in this project as well as their root
  // role: a project Member edits the flags of the project.
  const [envList, crEnvs, can] = await Promise.all([cached('/api/admin/environments'), changeRequestEnvs(projectId), projectCan(projectId)]);
  const envInfo = new Map((envList.environments || []).map((e) => [e.name, e]));
  // Segment names are fetched only when a strategy uses a segment: the
  // list counts every segment's uses, which costs the server time.
  const segmentNames = new Map();
  const loadSegmentNames = async (f) => {
    const used = (f.environments || []).some((e) => (e.strategies || []).some((st) => (st.segments || []).some((id) => !segmentNames.has(id))));
    if (!used) return;
    const segs = await cached('/api/admin/segments');
    for (const sg of segs.segments || []) segmentNames.set(sg.id, sg.name);
  };
  const alert = alertBox();
  const head = h('div');
  const banner = h('p', { class: 'notice cr-banner', hidden: true });
  const envsBox = h('div');

  const load = async () => {
    const f = await api('GET', path);
    await loadSegmentNames(f);
    drawHead(f);
    drawEnvs(f);
    await drawBanner(banner, projectId, name);
    return f;
  };
  // act runs a change, draws the flag afresh, and only then says what was
  // done: what, or (when what is null) what fn answered. The page is marked
  // busy until then, for assistive technology (and tests) to wait on.
  const act = async (what, fn) => {
    setAlert(alert, '');
    main.setAttribute('aria-busy', 'true');
    try {
      const said = await fn();
      await load();
      if (what || typeof said === 'string') status(what || said);
    } catch (err) {
      setAlert(alert, err.message);
    } finally {
      main.removeAttribute('aria-busy');
    }
  };

  const drawHead = (f) => {
    mount(head,
      h('p', { class: 'crumbs' }, h('a', { href: '/projects' }, 'Projects'), ' / ', h('a', { href: `/projects/${enc(projectId)}` }, projectId), ' / '),
      h('div', { class: 'page-head' },
        h('h1', null, f.name, f.stale ? h('span', { class: 'badge stale' }, 'Stale') : null),
        h('div', { class: 'row-actions' },
          can('UPDATE_FEATURE') && h('button', { type: 'button', onclick: async () => {
            if (await detailsForm(f, path)) await act('Flag saved', async () => {});
          } }, 'Edit details'),
          can('UPDATE_FEATURE') && h('button', { type: 'button', onclick: () => act(f.stale ? 'Marked active' : 'Marked stale',
            () => api('PATCH', path, [{ op: 'replace', path: '/stale', value: !f.stale }])) }, f.stale ? 'Mark active' : 'Mark stale'),
          can('DELETE_FEATURE') && h('button', { type: 'button', class: 'danger', onclick: async () => {
            if (!await confirm('Archive flag', `Archive ${f.name}? SDKs stop seeing it; you can revive it from the archive.`, 'Archive', { danger: true })) return;
            try {
              await api('DELETE', path);
              status(`${f.name} archived`);
              navigate(`/projects/${enc(projectId)}`);
            } catch (err) {
              setAlert(alert, err.message);
            }
          } }, 'Archive'))),
      f.description ? h('p', { class: 'lead' }, f.description) : null,
      h('dl', { class: 'meta' },
        h('dt', null, 'Type'), h('dd', null, f.type),
        h('dt', null, 'Created'), h('dd', null, fmtDate(f.createdAt)),
        h('dt', null, 'Last seen'), h('dd', null, lastSeen(f) ? fmtDate(lastSeen(f)) : 'Never'),
        h('dt', null, 'Impression data'), h('dd', null, f.impressionData ? 'On' : 'Off'),
        h('dt', null, 'Depends on'), h('dd', { class: 'deps' },
          (f.dependencies || []).map((d) => h('span', { class: 'tag' },
            `${d.feature} ${d.enabled ? 'on' : 'off'}${(d.variants || []).length ? ` with variant ${d.variants.join(' or ')}` : ''}`,
            can('UPDATE_FEATURE_DEPENDENCY') && h('button', { type: 'button', class: 'link small', 'aria-label': `Remove dependency on ${d.feature}`,
              onclick: () => act('Dependency removed', () => api('DELETE', `${path}/dependencies/${enc(d.feature)}`)) }, '×'))),
          (f.dependencies || []).length ? null : h('span', { class: 'muted' }, 'Nothing '),
          can('UPDATE_FEATURE_DEPENDENCY') && !(f.dependencies || []).length && h('button', { type: 'button', class: 'small', onclick: async () => {
            if (await dependencyForm(f, path, projectId)) await act('Dependency added', async () => {});
          } }, 'Add parent flag'),
          (f.children || []).length ? h('span', { class: 'muted' }, ` · Flags depending on it: ${f.children.join(', ')}`) : null),
        h('dt', null, 'Tags'), h('dd', null,
          (f.tags || []).map((t) => h('span', { class: 'tag' }, `${t.type}:${t.value}`,
            can('UPDATE_FEATURE') && h('button', { type: 'button', class: 'link small', 'aria-label': `Remove tag ${t.type}:${t.value}`,
              onclick: () => act('Tag removed', () => api('DELETE', `/api/admin/features/${enc(f.name)}/tags/${enc(t.type)}/${enc(t.value)}`)) }, '×'))),
          (f.tags || []).length ? null : h('span', { class: 'muted' }, 'None '),
          can('UPDATE_FEATURE') && h('button', { type: 'button', class: 'small', onclick: async () => {
            if (await tagForm(f)) await act('Tag added', async () => {});
          } }, 'Add tag'))));
  };

  const drawEnvs = (f) => {
    const envs = [...(f.environments || [])].sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0) || a.name.localeCompare(b.name));
    mount(envsBox, envs.map((env) => envCard(f, env)));
  };

  const envCard = (f, env) => {
    const base = `${path}/environments/${enc(env.name)}`;
    const list = [...(env.strategies || [])].sort((a, b) => a.sortOrder - b.sortOrder);
    const prod = (envInfo.get(env.name) || {}).type === 'production';
    // Where change requests are required, edits become proposals: the
    // flag itself changes only when the request is applied.
    const proposing = crEnvs.has(env.name);
    const write = (what, direct, change) => (proposing
      ? act(null, () => propose(projectId, env.name, { feature: f.name, ...change }, what))
      : act(what, direct));
    const toggle = async (on) => {
      setAlert(alert, '');
      if (proposing) {
        await write(`turn ${f.name} ${on ? 'on' : 'off'} in ${env.name}`, null, { action: 'updateEnabled', payload: { enabled: on } });
        return false;
      }
      if (prod && !await confirm(`Turn ${on ? 'on' : 'off'} in ${env.name}`,
        `${env.name} is a production environment. Turn ${f.name} ${on ? 'on' : 'off'} there?`, on ? 'Turn on' : 'Turn off')) return false;
      try {
        await api('POST', `${base}/${on ? 'on' : 'off'}`);
        status(`${f.name} is ${on ? 'on' : 'off'} in ${env.name}`);
        return true;
      } catch (err) {
        setAlert(alert, err.message);
        return false;
      }
    };
    // moveTo puts the strategy at index from at index to, through the same
    // call for the arrow buttons and for drag and drop.
    const moveTo = (from, to) => {
      if (from === to || to < 0 || to >= list.length) return undefined;
      const order = list.map((s) => s.id);
      const [id] = order.splice(from, 1);
      order.splice(to, 0, id);
      const items = order.map((sid, n) => ({ id: sid, sortOrder: n }));
      return write('Strategies reordered', () => api('POST', `${base}/strategies/set-sort-order`, items),
        { action: 'reorderStrategy', payload: items });
    };
    const move = (i, by) => moveTo(i, i + by);
    // Drag and drop: the index being dragged lives here, not only in the
    // drag data, which pages may not read until the drop.
    let dragging = -1;
    const canDrag = can('UPDATE_FEATURE_STRATEGY') && list.length > 1;
    const dragProps = (i) => !canDrag ? {} : {
      draggable: 'true',
      ondragstart: (e) => {
        dragging = i;
        e.dataTransfer.effectAllowed = 'move';
        e.dataTransfer.setData('text/plain', String(i));
        e.currentTarget.classList.add('dragging');
      },
      ondragend: (e) => {
        dragging = -1;
        e.currentTarget.classList.remove('dragging');
      },
      ondragover: (e) => {
        if (dragging < 0 || dragging === i) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'move';
        e.currentTarget.classList.add('drop-target');
      },
      ondragleave: (e) => e.currentTarget.classList.remove('drop-target'),
      ondrop: (e) => {
        e.preventDefault();
        e.currentTarget.classList.remove('drop-target');
        const from = dragging;
        dragging = -1;
        if (from >= 0) moveTo(from, i);
      },
    };
    const label = (st, i) => `${st.title || st.name} (${i + 1})`;
    // edit opens the strategy editor; where change requests are required
    // saving proposes the new or changed strategy instead.
    const edit = async (st, i) => {
      setAlert(alert, '');
      let said = st ? 'Strategy saved' : 'Strategy added';
      const save = proposing ? async (body) => {
        said = await propose(projectId, env.name, st
          ? { feature: f.name, action: 'updateStrategy', payload: { ...body, id: st.id } }
          : { feature: f.name, action: 'addStrategy', payload: body },
        st ? `change the strategy ${label(st, i)} in ${env.name}` : `add a ${body.name} strategy in ${env.name}`);
      } : undefined;
      if (await editStrategy({ project: projectId, feature: f.name, environment: env.name, st, save })) {
        await act(said, async () => {});
      }
    };
    // copy adds st to environment other, proposed there when that
    // environment requires change requests.
    const copy = (st, other) => {
      const body = {
        name: st.name, title: st.title || '', disabled: st.disabled, parameters: st.parameters, constraints: st.constraints,
        variants: st.variants, segments: st.segments,
      };
      if (crEnvs.has(other)) {
        return act(null, () => propose(projectId, other, { feature: f.name, action: 'addStrategy', payload: body },
          `copy the strategy ${st.title || st.name} to ${other}`));
      }
      return act(`Strategy copied to ${other}`, () => api('POST', `${path}/environments/${enc(other)}/strategies`, body));
    };
    return h('section', { class: 'env-card', 'data-env': env.name, 'aria-labelledby': `env-${env.name}` },
      h('header', null,
        switchButton(`Toggle ${f.name} in ${env.name}`, env.enabled, toggle, { disabled: !can('UPDATE_FEATURE_ENVIRONMENT') }),
        h('h2', { id: `env-${env.name}` }, env.name),
        proposing ? h('span', { class: 'badge cr', title: 'Changes here are proposed in a change request' }, 'change requests') : null,
        prod ? h('span', { class: 'badge prod' }, 'production') : h('span', { class: 'badge off' }, (envInfo.get(env.name) || {}).type || ''),
        h('span', { class: 'spacer' }),
        can('CREATE_FEATURE_STRATEGY') && h('button', { type: 'button', onclick: () => edit(null), 'aria-label': `Add strategy in ${env.name}` }, 'Add strategy')),
      h('div', { class: 'body' },
        list.length ? list.map((st, i) => h('div', { class: `strategy${st.disabled ? ' disabled' : ''}`, 'data-strategy': st.id, ...dragProps(i) },
          canDrag ? h('span', { class: 'drag-handle', 'aria-hidden': 'true', title: 'Drag to reorder' }, '⠿') : null,
          h('div', { class: 'main' },
            h('div', { class: 'title' }, `${i + 1}. ${st.title || st.name}`, st.title ? h('span', { class: 'muted' }, ` (${st.name})`) : null,
              st.disabled ? h('span', { class: 'badge off' }, 'Disabled') : null),
            h('p', { class: 'summary' }, summary(st, segmentNames))),
          h('div', { class: 'tools' },
            can('UPDATE_FEATURE_STRATEGY') && [
              h('button', { type: 'button', class: 'small', disabled: i === 0, onclick: () => move(i, -1), 'aria-label': `Move ${label(st, i)} up` }, '↑'),
              h('button', { type: 'button', class: 'small', disabled: i === list.length - 1, onclick: () => move(i, 1), 'aria-label': `Move ${label(st, i)} down` }, '↓'),
              h('button', { type: 'button', class: 'small', onclick: () => edit(st, i), 'aria-label': `Edit ${label(st, i)}` }, 'Edit'),
              h('button', { type: 'button', class: 'small', 'aria-label': `${st.disabled ? 'Enable' : 'Disable'} ${label(st, i)}`,
                onclick: () => write(st.disabled ? 'Strategy enabled' : 'Strategy disabled', () => api('PUT', `${base}/strategies/${enc(st.id)}`, { ...st, disabled: !st.disabled }),
                  { action: 'updateStrategy', payload: { ...st, disabled: !st.disabled } }) },
              st.disabled ? 'Enable' : 'Disable')],
            can('CREATE_FEATURE_STRATEGY') && (f.environments || []).filter((o) => o.name !== env.name).map((o) => h('button', {
              type: 'button', class: 'small', 'aria-label': `Copy ${label(st, i)} to ${o.name}`,
              onclick: () => copy(st, o.name),
            }, `Copy to ${o.name}`)),
            can('DELETE_FEATURE_STRATEGY') && h('button', { type: 'button', class: 'small danger', 'aria-label': `Delete ${label(st, i)}`, onclick: async () => {
              if (!await confirm('Delete strategy', `Delete the strategy ${st.title || st.name} in ${env.name}?`, 'Delete', { danger: true })) return;
              await write('Strategy deleted', () => api('DELETE', `${base}/strategies/${enc(st.id)}`), { action: 'deleteStrategy', payload: { id: st.id } });
            } }, 'Delete'))))
          : h('p', { class: 'muted' }, 'No strategies yet.'),
        h('div', { class: 'variants-line' },
          h('strong', null, 'Variants: '),
          (env.variants || []).length
            ? (env.variants || []).map((v) => h('span', { class: 'tag' }, `${v.name} ${v.weight / 10}%${v.payload ? ` (${v.payload.type})` : ''}`))
            : h('span', { class: 'muted' }, 'none '),
          can('UPDATE_FEATURE_ENVIRONMENT_VARIANTS') && h('button', { type: 'button', class: 'small', 'aria-label': `Edit variants in ${env.name}`, onclick: async () => {
            let said = 'Variants saved';
            const save = proposing ? async (variants) => {
              said = await propose(projectId, env.name, { feature: f.name, action: 'patchVariant', payload: { variants } }, `change the variants in ${env.name}`);
            } : undefined;
            if (await editVariants({ project: projectId, feature: f.name, environment: env.name, variants: env.variants, save })) {
              await act(said, async () => {});
            }
          } }, 'Edit variants'))));
  };

  // The flag's own history, fetched when opened.
  const history = h('details', { class: 'panel history' }, h('summary', null, h('h2', { class: 'inline' }, 'History')));
  let historyLoaded = false;
  history.addEventListener('toggle', async () => {
    if (!history.open || historyLoaded) return;
    historyLoaded = true;
    const box = h('div', null, h('p', { class: 'muted' }, 'Loading…'));
    history.append(box);
    try {
      const data = await api('GET', `/api/admin/events/${enc(name)}`);
      mount(box, (data.events || []).length ? data.events.map(eventItem) : h('p', { class: 'muted' }, 'No events.'));
    } catch (err) {
      mount(box, h('p', { class: 'alert' }, err.message));
    }
  });

  // Usage from client metrics, fetched when opened.
  const usage = h('details', { class: 'panel usage-box' }, h('summary', null, h('h2', { class: 'inline' }, 'Usage')));
  let usageLoaded = false;
  usage.addEventListener('toggle', async () => {
    if (!usage.open || usageLoaded) return;
    usageLoaded = true;
    const box = h('div', null, h('p', { class: 'muted' }, 'Loading…'));
    usage.append(box);
    try {
      await renderUsage(box, name);
    } catch (err) {
      mount(box, h('p', { class: 'alert' }, err.message));
    }
  });

  mount(main, head, banner, alert, envsBox, usage, history);
  await load();
}

// detailsForm edits a flag's description, type and impression data.
async function detailsForm(f, path) {
  const types = await cached('/api/admin/feature-types');
  return modal(`Edit ${f.name}`, (close) => {
    const desc = field('Description', h('textarea', { name: 'description', rows: 3 }, f.description || ''), { name: 'description' });
    const type = field('Type', select((types.types || []).map((t) => [t.id, t.name]), f.type, { name: 'type' }), { name: 'type' });
    const impression = checkbox('Emit impression events', f.impressionData, { name: 'impressionData' });
    const alert = alertBox();
    const form = h('form', { novalidate: true }, type.el, desc.el, impression.el, alert, h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Save'),
      h('button', { type: 'button', onclick: () => close(false) }, 'Cancel')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        await api('PATCH', path, [
          { op: 'replace', path: '/description', value: desc.control.value },
          { op: 'replace', path: '/type', value: type.control.value },
          { op: 'replace', path: '/impressionData', value: impression.control.checked },
        ]);
        close(true);
      } catch (err) {
        showError(err, [desc, type], alert);
      }
    });
    return form;
  });
}

// tagForm adds a tag of an existing tag type to the flag.
async function tagForm(f) {
  const data = await cached('/api/admin/tag-types');
  const tagTypes = (data.tagTypes || []).map((t) => [t.name, t.name]);
  return modal(`Add a tag to ${f.name}`, (close) => {
    const type = field('Tag type', select(tagTypes, tagTypes.length ? tagTypes[0][0] : '', { name: 'type' }), { name: 'type' });
    const value = field('Value', h('input', { name: 'value', autocomplete: 'off' }), { name: 'value' });
    const alert = alertBox();
    const form = h('form', { novalidate: true }, type.el, value.el, alert, h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Add tag'),
      h('button', { type: 'button', onclick: () => close(false) }, 'Cancel')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        await api('POST', `/api/admin/features/${enc(f.name)}/tags`, { type: type.control.value, value: value.control.value.trim() });
        close(true);
      } catch (err) {
        showError(err, [type, value], alert);
      }
    });
    return form;
  });
}

// dependencyForm makes the flag depend on a parent flag of its project:
// the parent must be on (optionally with one of some variants) or off.
async function dependencyForm(f, path, projectId) {
  const parents = await api('GET', `${path}/parents`);
  return modal(`Make ${f.name} depend on another flag`, (close) => {
    const parent = field('Parent flag', select([['', 'Choose a flag'], ...(parents || []).map((n) => [n, n])], '', { name: 'parent' }), { name: 'feature' });
    const state = field('The parent must be', select([['on', 'on'], ['off', 'off']], 'on', { name: 'state' }), { name: 'enabled' });
    const variantsBox = h('fieldset', { hidden: true }, h('legend', null, 'With one of these variants (none: any)'));
    const alert = alertBox();
    const loadVariants = async () => {
      mount(variantsBox, h('legend', null, 'With one of these variants (none: any)'));
      variantsBox.hidden = true;
      if (!parent.control.value || state.control.value !== 'on') return;
      const names = await api('GET', `/api/admin/projects/${enc(projectId)}/features/${enc(parent.control.value)}/parent-variants`);
      if (!(names || []).length) return;
      variantsBox.hidden = false;
      for (const n of [...new Set(names)]) variantsBox.append(checkbox(n, false, { name: 'variant', value: n }).el);
    };
    parent.control.addEventListener('change', loadVariants);
    state.control.addEventListener('change', loadVariants);
    const form = h('form', { novalidate: true }, parent.el, state.el, variantsBox, alert, h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Add dependency'),
      h('button', { type: 'button', onclick: () => close(false) }, 'Cancel')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (!parent.control.value) {
        parent.setError('Choose the parent flag');
        parent.control.focus();
        return;
      }
      const variants = [...variantsBox.querySelectorAll('input:checked')].map((c) => c.value);
      try {
        await api('POST', `${path}/dependencies`, { feature: parent.control.value, enabled: state.control.value === 'on', variants });
        close(true);
      } catch (err) {
        showError(err, [parent, state], alert);
      }
    });
    return form;
  });
}
