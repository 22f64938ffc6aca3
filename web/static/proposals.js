// Change requests on the flag page: a banner listing the requests that
// would change the flag, and proposals in place of direct edits in the
// environments where change requests are required (there the API refuses
// direct edits with 403).
import { h, mount } from './dom.js';
import { api, enc } from './api.js';

// changeRequestEnvs is the set of the project's environments where
// change requests are required.
export async function changeRequestEnvs(projectId) {
  const config = await api('GET', `/api/admin/projects/${enc(projectId)}/change-requests/config`);
  return new Set(config.filter((c) => c.changeRequestEnabled).map((c) => c.environment));
}

// drawBanner fills box with the flag's pending and scheduled change
// requests, each linked; empty when there are none.
export async function drawBanner(box, projectId, name) {
  const base = `/api/admin/projects/${enc(projectId)}/change-requests`;
  const [pending, scheduled] = await Promise.all([
    api('GET', `${base}/pending/${enc(name)}`),
    api('GET', `${base}/scheduled?feature=${enc(name)}`),
  ]);
  const list = [...pending, ...scheduled].sort((a, b) => a.id - b.id);
  box.hidden = !list.length;
  mount(box, list.length ? [
    h('strong', null, `${name} has changes waiting in ${list.length === 1 ? 'a change request' : `${list.length} change requests`}: `),
    list.map((cr, i) => [i ? ', ' : '', h('a', { href: `/projects/${enc(projectId)}/change-requests/${cr.id}`, 'data-cr': cr.id },
      `${cr.title} (${cr.state}, ${cr.environment})`)]),
  ] : null);
  return list;
}

// propose adds change ({feature, action, payload}) to the caller's draft
// change request for env and answers what to tell the user, once the page
// shows the result: that the change (in words, what) is in the draft.
export async function propose(projectId, env, change, what) {
  const cr = await api('POST', `/api/admin/projects/${enc(projectId)}/environments/${enc(env)}/change-requests`, change);
  return `Proposed in ${cr.title}: ${what}`;
}
