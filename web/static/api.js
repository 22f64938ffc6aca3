// The admin API client. Every request is same-origin JSON with the session
// cookie, so it passes the API's CSRF check, and the API's own error body
// ({name, message, details}) reaches the page unchanged.

export class ApiError extends Error {
  constructor(status, body, retryAfter) {
    super((body && body.message) || `The server answered ${status}`);
    this.status = status;
    this.name = (body && body.name) || 'Error';
    this.details = (body && body.details) || [];
    this.path = this.details[0] && this.details[0].path;
    this.retryAfter = retryAfter;
  }
}

let expired = () => {};

// onSessionExpired sets what happens when a signed-in call answers 401.
export function onSessionExpired(fn) {
  expired = fn;
}

// api sends one request. With session false, a 401 is an ordinary error
// (sign-in and the first "who am I" call); otherwise it means the session
// ended, and the app goes to the sign-in page.
export async function api(method, path, body, { session = true } = {}) {
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  // Every write says JSON, also without a body (toggles, sign-out): the
  // API refuses cookie-authenticated writes of other content types, as a
  // cross-site form could send them.
  if (method !== 'GET' && method !== 'HEAD') init.headers['Content-Type'] = 'application/json';
  if (body !== undefined) init.body = JSON.stringify(body);
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, { message: 'The server cannot be reached; check your connection and try again.' });
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch (e) {
      data = { message: text };
    }
  }
  if (res.status === 401 && session) {
    expired();
    throw new ApiError(401, { message: 'Your session has expired; sign in again' });
  }
  if (!res.ok) throw new ApiError(res.status, data, res.headers.get('Retry-After'));
  if (method !== 'GET') cache.clear();
  return data;
}

// cache holds answers of lookups that pages share (environments, context
// fields, segments, strategy definitions) for a short while; any write
// from this page empties it.
const cache = new Map();
const cacheTTL = 30e3;

// cached is api('GET', path) answered from the cache when fresh.
export function cached(path) {
  const hit = cache.get(path);
  if (hit && Date.now() - hit.at < cacheTTL) return hit.answer;
  const answer = api('GET', path);
  cache.set(path, { at: Date.now(), answer });
  answer.catch(() => cache.delete(path));
  return answer;
}

// enc encodes one path segment.
export const enc = encodeURIComponent;

// lastSeen is when SDKs last reported a flag in any environment (Unleash
// answers it per environment only); undefined when never.
export const lastSeen = (f) => (f.environments || []).map((e) => e.lastSeenAt).filter(Boolean).sort().pop();
