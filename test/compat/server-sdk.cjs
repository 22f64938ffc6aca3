// Runs the Node server SDK (unleash-client) against a Signalbox server and
// prints, as one JSON document, isEnabled and getVariant for every flag and
// context it is given. Input (env): URL (API base, e.g. http://127.0.0.1:4242/api),
// TOKEN (client token), CASES (path of a JSON file {flags: [...], contexts: [...]}),
// APP_NAME (optional, the SDK's appName; compat-server-sdk by default).
// It waits until its metrics were accepted, so the caller can check them.
'use strict';
const fs = require('fs');
const { Unleash } = require('unleash-client');

const cases = JSON.parse(fs.readFileSync(process.env.CASES, 'utf8'));
const timeout = setTimeout(() => fail('timed out'), 20000);

function fail(msg) {
  console.error('server-sdk: ' + msg);
  process.exit(1);
}

const unleash = new Unleash({
  url: process.env.URL,
  appName: process.env.APP_NAME || 'compat-server-sdk',
  instanceId: 'compat-1',
  refreshInterval: 1000,
  metricsInterval: 500,
  disableAutoStart: false,
  customHeaders: { Authorization: process.env.TOKEN },
});
unleash.on('error', (e) => fail(String(e && e.message ? e.message : e)));
unleash.on('warn', () => {});

// Registration and the first metrics report are separate requests that may
// finish in either order: the script ends once both happened.
let registered = false;
let sent = false;
let results = null;
function finish() {
  if (!registered || !sent || results === null) return;
  clearTimeout(timeout);
  unleash.destroy();
  // Exit only once the (large) output is flushed to the pipe.
  process.stdout.write(JSON.stringify({ registered, results }), () => process.exit(0));
}
unleash.on('registered', () => { registered = true; finish(); });

unleash.on('synchronized', () => {
  const out = [];
  for (const ctx of cases.contexts) {
    for (const flag of cases.flags) {
      const variant = unleash.getVariant(flag, ctx);
      out.push({
        flag,
        context: ctx,
        enabled: unleash.isEnabled(flag, ctx),
        variant: { name: variant.name, enabled: variant.enabled, payload: variant.payload || null },
      });
    }
  }
  results = out;
  unleash.once('sent', () => { sent = true; finish(); });
});
