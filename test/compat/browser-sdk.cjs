// Runs the browser SDK (unleash-proxy-client) in Node against a Signalbox
// proxy and prints what it saw as JSON. Input (env): URL (the proxy's
// /proxy URL), KEY (client key), USER_ID, FLAGS (comma-separated names).
// It checks start, isEnabled, getVariant (with payloads), updateContext,
// re-polling with If-None-Match, and that metrics were posted.
'use strict';
const { UnleashClient } = require('unleash-proxy-client');

const timeout = setTimeout(() => fail('timed out'), 20000);
function fail(msg) {
  console.error('browser-sdk: ' + msg);
  process.exit(1);
}

const seen = { requests: [], metricsPosted: 0 };
const realFetch = globalThis.fetch;
// Wrap fetch to record what the SDK sends (If-None-Match reuse, metrics).
const fetchSpy = async (url, init = {}) => {
  const headers = new Headers(init.headers || {});
  seen.requests.push({ url: String(url), method: init.method || 'GET', ifNoneMatch: headers.get('If-None-Match') });
  const res = await realFetch(url, init);
  if (String(url).includes('/client/metrics')) seen.metricsPosted++;
  seen.requests[seen.requests.length - 1].status = res.status;
  seen.requests[seen.requests.length - 1].etag = res.headers.get('ETag');
  return res;
};

const flags = process.env.FLAGS.split(',');
const client = new UnleashClient({
  url: process.env.URL,
  clientKey: process.env.KEY,
  appName: 'compat-browser-sdk',
  refreshInterval: 1,
  metricsInterval: 1,
  fetch: fetchSpy,
  storageProvider: { save: async () => {}, get: async () => undefined },
});

function snapshot() {
  const out = {};
  for (const f of flags) {
    const v = client.getVariant(f);
    out[f] = { enabled: client.isEnabled(f), variant: { name: v.name, enabled: v.enabled, payload: v.payload || null } };
  }
  return out;
}

client.on('error', (e) => fail(String(e)));
client.on('ready', async () => {
  const before = snapshot();
  await client.updateContext({ userId: process.env.USER_ID });
  const after = snapshot();
  // Let one more poll and one metrics interval pass.
  setTimeout(() => {
    clearTimeout(timeout);
    client.stop();
    const out = JSON.stringify({ before, after, requests: seen.requests, metricsPosted: seen.metricsPosted });
    process.stdout.write(out, () => process.exit(0));
  }, 2500);
});
client.start();
