// One change request: its changes as diffs against the flags as they are
// now, its approvals, comments, and the steps its state allows (see the
// state table in server/change_requests.go). Every step re-renders the
// page from the API's answer; a refusal shows the API's reason.
import { h, mount, field, alertBox, setAlert, confirm, status, fmtDate, uid } from '../dom.js';
import { api, enc, cached } from '../api.js';
import { projectCan, session } from '../app.js';
import { describe, diffList } from '../changes.js';

const open = ['Draft', 'In review', 'Approved', 'Scheduled'];

export async function render(main, [projectId, id]) {
  const base = `/api/admin/projects/${enc(projectId)}/change-requests/${enc(id)}`;
  // can follows the project roles too: a project Owner reviews and applies
  // the project's change requests.
  const can = await projectCan(projectId);
  const alert = alertBox();
  const body = h('div');

  // now reads the current state of what cr changes, while it can still be
  // applied: its flags in the request's environment and its segments.
  const now = async (cr) => {
    const out = { flags: new Map(), segments: new Map(), segmentNames: new Map() };
    if (!open.includes(cr.state)) return out;
    await Promise.all([
      ...cr.features.map((f) => api('GET', `/api/admin/projects/${enc(projectId)}/features/${enc(f.name)}`)
        .then((flag) => out.flags.set(f.name, flag), () => {})),
      ...cr.segments.map((c) => api('GET', `/api/admin/segments/${enc(c.payload.id)}`)
        .then((sg) => out.segments.set(c.payload.id, sg), () => {})),
    ]);
    const usesSegments = [...out.flags.values()].some((f) => (f.environments || []).some((e) => (e.strategies || []).some((st) => (st.segments || []).length))) ||
      cr.features.some((f) => f.changes.some((c) => (c.payload.segments || []).length));
    if (usesSegments) {
      const segs = await cached('/api/admin/segments');
      for (const sg of segs.segments || []) out.segmentNames.set(sg.id, sg.name);
    }
    return out;
  };

  const show = async (cr) => {
    draw(cr, await now(cr));
  };

  // step sends one request and re-renders from its answer (or from a
  // fresh read when the answer is not the request).
  const step = async (what, fn) => {
    setAlert(alert, '');
    try {
      const answer = await fn();
      if (what) status(what);
      await show(answer && answer.state ? answer : await api('GET', base));
    } catch (err) {
      setAlert(alert, err.message);
    }
  };
  const setState = (state, what, extra = {}) => step(what, () => api('PUT', `${base}/state`, { state, ...extra }));

  const draw = (cr, cur) => {
    const me = session.user || {};
    const author = (cr.createdBy.id !== undefined && cr.createdBy.id === me.id) || can('ADMIN');
    const live = open.includes(cr.state);
    const buttons = [
      author && cr.state === 'Draft' && h('button', { type: 'button', class: 'primary', onclick: () => setState('In review', 'Sent to review') }, 'Send to review'),
      can('APPROVE_CHANGE_REQUEST') && ['In review', 'Approved'].includes(cr.state) &&
        h('button', { type: 'button', class: 'primary', onclick: () => setState('Approved', 'Approval added') }, 'Approve'),
      can('APPROVE_CHANGE_REQUEST') && ['In review', 'Approved', 'Scheduled'].includes(cr.state) &&
        h('button', { type: 'button', class: 'danger', onclick: async () => {
          if (await confirm('Reject change request', `Reject “${cr.title}”? It cannot be applied afterwards.`, 'Reject', { danger: true })) await setState('Rejected', 'Rejected');
        } }, 'Reject'),
      can('APPLY_CHANGE_REQUEST') && ['Approved', 'Scheduled'].includes(cr.state) &&
        h('button', { type: 'button', class: 'primary', onclick: () => setState('Applied', 'Applied') }, 'Apply now'),
      author && live && h('button', { type: 'button', class: 'danger', onclick: async () => {
        if (await confirm('Cancel change request', `Cancel “${cr.title}”? Its changes will not be applied.`, 'Cancel the request', { danger: true })) await setState('Cancelled', 'Cancelled');
      } }, 'Cancel request'),
    ].filter(Boolean);

    const approvals = `${cr.approvals.length} of ${cr.minApprovals} approval${cr.minApprovals === 1 ? '' : 's'}`;
    mount(body,
      h('div', { class: 'page-head' },
        h('h1', null, cr.title, h('span', { class: `badge cr-state`, 'data-state': cr.state }, cr.state)),
        buttons.length ? h('div', { class: 'row-actions' }, buttons) : null),
      h('dl', { class: 'meta' },
        h('dt', null, 'Environment'), h('dd', { 'data-field': 'environment' }, cr.environment),
        h('dt', null, 'Proposed by'), h('dd', { 'data-field': 'author' }, cr.createdBy.username),
        h('dt', null, 'Created'), h('dd', null, fmtDate(cr.createdAt)),
        h('dt', null, 'Approvals'), h('dd', { 'data-field': 'approvals' }, approvals),
        cr.schedule ? [h('dt', null, 'Scheduled for'), h('dd', { 'data-field': 'scheduled' }, fmtDate(cr.schedule.scheduledAt),
          cr.schedule.failureReason ? h('span', { class: 'alert inline' }, ` Failed: ${cr.schedule.failureReason}`) : null)] : null),
      alert,
      can('APPLY_CHANGE_REQUEST') && ['Approved', 'Scheduled'].includes(cr.state) ? scheduleForm(cr, (at) =>
        setState('Scheduled', 'Scheduled', { scheduledAt: at })) : null,
      h('section', { class: 'panel', 'aria-labelledby': 'cr-changes' },
        h('h2', { id: 'cr-changes' }, 'Changes'),
        live ? h('p', { class: 'hint' }, `Each change compared with ${cr.environment} as it is now: removed lines marked −, added lines marked +.`)
          : h('p', { class: 'hint' }, `This request is ${cr.state}; its changes are shown as they were proposed.`),
        cr.features.map((f) => featureChanges(cr, f, cur, author && live, (c) => step('Change discarded', () => api('DELETE', `${base}/changes/${enc(c.id)}`)))),
        cr.segments.map((c) => changeItem(c, { segment: cur.segments.get(c.payload.id) }, live, author && live,
          () => step('Change discarded', () => api('DELETE', `${base}/changes/${enc(c.id)}`)))),
        !cr.features.length && !cr.segments.length ? h('p', { class: 'muted' }, 'No changes.') : null),
      h('section', { class: 'panel', 'aria-labelledby': 'cr-reviews' },
        h('h2', { id: 'cr-reviews' }, 'Reviews'),
        h('p', { 'data-field': 'approval-count' }, h('strong', null, approvals), cr.approvals.length >= cr.minApprovals ? '' : ' needed before it can be applied.'),
        reviewList('Approved by', cr.approvals, 'approvals'),
        cr.rejections.length ? reviewList('Rejected by', cr.rejections, 'rejections') : null),
      h('section', { class: 'panel', 'aria-labelledby': 'cr-comments' },
        h('h2', { id: 'cr-comments' }, 'Comments'),
        cr.comments.length ? h('ul', { class: 'comments' }, cr.comments.map((c) => h('li', { 'data-comment': c.id },
          h('p', { class: 'comment-by' }, h('strong', null, c.createdBy.username), ' ', h('span', { class: 'muted' }, fmtDate(c.createdAt))),
          h('p', { class: 'text' }, c.text))))
          : h('p', { class: 'muted' }, 'No comments yet.'),
        can('UPDATE_FEATURE') ? commentForm((text) => step('Comment added', () => api('POST', `${base}/comments`, { text }))) : null));
  };

  const first = await api('GET', base);
  mount(main,
    h('p', { class: 'crumbs' }, h('a', { href: '/projects' }, 'Projects'), ' / ',
      h('a', { href: `/projects/${enc(projectId)}` }, projectId), ' / ',
      h('a', { href: `/projects/${enc(projectId)}/change-requests` }, 'Change requests'), ' / '),
    body);
  await show(first);
}

// featureChanges lists the changes of one flag, with the strategy that
// switching it on adds when it has none.
function featureChanges(cr, f, cur, editable, discard) {
  const flag = cur.flags.get(f.name);
  const env = flag ? (flag.environments || []).find((e) => e.name === cr.environment) : undefined;
  const state = { env, flag, segmentNames: cur.segmentNames };
  const live = open.includes(cr.state);
  return h('article', { class: 'cr-feature', 'data-feature': f.name },
    h('h3', null, 'Flag ', h('a', { href: `/projects/${enc(cr.project)}/features/${enc(f.name)}` }, f.name), ` in ${cr.environment}`),
    f.conflict ? h('p', { class: 'alert' }, `Conflict: ${f.conflict}`) : null,
    f.changes.map((c) => changeItem(c, state, live, editable, () => discard(c))),
    f.defaultChange ? h('div', { class: 'cr-change', 'data-change': 'default' },
      h('h4', null, 'Also added: the environment’s default strategy, since the flag has no enabled strategy'),
      diffList([], describe(f.defaultChange, state).after)) : null);
}

// changeItem shows one change as a diff, with its Discard button.
function changeItem(c, state, live, editable, discard) {
  const d = describe(c, state);
  return h('div', { class: 'cr-change', 'data-change': c.id },
    h('div', { class: 'cr-change-head' },
      h('h4', null, d.title),
      h('span', { class: 'muted' }, `by ${c.createdBy.username}`),
      editable ? h('button', { type: 'button', class: 'small danger', 'aria-label': `Discard change: ${d.title}`, onclick: discard }, 'Discard') : null),
    c.conflict ? h('p', { class: 'alert' }, `Conflict: ${c.conflict}`) : null,
    diffList(live ? d.before : [], d.after));
}

function reviewList(label, list, name) {
  return h('div', { 'data-reviews': name },
    h('h3', null, label),
    list.length ? h('ul', null, list.map((r) => h('li', null, r.createdBy.username, ' ', h('span', { class: 'muted' }, fmtDate(r.createdAt)))))
      : h('p', { class: 'muted' }, 'Nobody yet.'));
}

// localInput is a Date as a datetime-local input's value.
function localInput(d) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

// scheduleForm asks when to apply the request, a time in the future.
function scheduleForm(cr, schedule) {
  const input = h('input', { type: 'datetime-local', name: 'scheduledAt', required: true,
    min: localInput(new Date()), value: cr.schedule ? localInput(new Date(cr.schedule.scheduledAt)) : '' });
  const at = field('Apply at', input, { name: 'scheduledAt', hint: 'Your local time; the request is applied then unless it changes.' });
  const form = h('form', { class: 'inline-form schedule', novalidate: true }, at.el,
    h('button', { type: 'submit' }, cr.schedule ? 'Reschedule' : 'Schedule'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const when = new Date(input.value);
    if (!input.value || Number.isNaN(when.getTime())) return at.setError('Choose the date and time to apply it');
    if (when <= new Date()) return at.setError('Choose a time in the future');
    at.setError('');
    return schedule(when.toISOString());
  });
  return form;
}

function commentForm(add) {
  const text = h('textarea', { id: uid('comment'), name: 'comment', rows: 3 });
  const f = field('Add a comment', text, { name: 'text' });
  const form = h('form', { class: 'comment-form', novalidate: true }, f.el,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Add comment')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!text.value.trim()) {
      f.setError('Write a comment first');
      return;
    }
    f.setError('');
    await add(text.value);
  });
  return form;
}
