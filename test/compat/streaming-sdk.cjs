// Runs the Node server SDK (unleash-client) in streaming or delta-polling
// mode and answers checks given on stdin, one JSON object a line:
//   {"op":"check","id":N,"flag":"f","context":{...},"enabled":true,"variant":"v"}
//     waits (at most 15 s) until isEnabled (and getVariant's name, when
//     given) match, then prints {"id":N,"ok":true} or {"id":N,"ok":false,"got":{...}}.
//   {"op":"mode","id":N} prints {"id":N,"mode":"streaming"|"polling"}.
//   {"op":"exit"} stops.
// It also prints {"mode":...} when the SDK changes mode, {"sse":name,"id":...,
// "types":[...]} for every stream message, and {"warn":...} for warnings.
// Input (env): URL (API base), TOKEN, MODE (streaming, delta or polling).
'use strict';
const readline = require('readline');
const { Unleash } = require('unleash-client');

const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const modes = {
  streaming: { type: 'streaming' },
  delta: { type: 'polling', format: 'delta' },
  polling: { type: 'polling', format: 'full' },
};
const mode = modes[process.env.MODE];

const unleash = new Unleash({
  url: process.env.URL,
  appName: 'compat-streaming-sdk',
  instanceId: 'compat-stream-1',
  refreshInterval: 300,
  disableMetrics: true,
  customHeaders: { Authorization: process.env.TOKEN },
  experimentalMode: mode,
});
unleash.on('error', (e) => out({ error: String(e && e.message ? e.message : e) }));
unleash.on('warn', (m) => out({ warn: String(m) }));
unleash.repository.on('mode', (m) => out({ mode: m.to }));

// Report what the stream delivers, from the SDK's own event source (it is
// replaced when the SDK re-creates the stream).
let watched;
setInterval(() => {
  const es = unleash.repository.fetcher.streamingFetcher.eventSource;
  if (!es || es === watched) return;
  watched = es;
  for (const name of ['unleash-connected', 'unleash-updated', 'fetch-mode']) {
    es.addEventListener(name, (e) => {
      let types;
      try { types = JSON.parse(e.data).events.map((ev) => ev.type); } catch (_) { types = e.data; }
      out({ sse: name, id: e.lastEventId, types });
    });
  }
}, 5).unref();

function matches(c) {
  const enabled = unleash.isEnabled(c.flag, c.context || {});
  const variant = unleash.getVariant(c.flag, c.context || {}).name;
  return { ok: enabled === c.enabled && (c.variant === undefined || variant === c.variant), got: { enabled, variant } };
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const c = JSON.parse(line);
  if (c.op === 'exit') {
    unleash.destroy();
    process.exit(0);
  }
  if (c.op === 'mode') {
    out({ id: c.id, mode: unleash.repository.fetcher.getMode() });
    return;
  }
  const deadline = Date.now() + 15000;
  const poll = () => {
    const r = matches(c);
    if (r.ok) return out({ id: c.id, ok: true });
    if (Date.now() > deadline) return out({ id: c.id, ok: false, got: r.got });
    setTimeout(poll, 5);
  };
  poll();
});
rl.on('close', () => process.exit(0));
unleash.on('ready', () => out({ ready: true }));
