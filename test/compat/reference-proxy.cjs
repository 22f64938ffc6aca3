// Starts the reference proxy (@unleash/proxy) against a Signalbox server,
// for differential tests. Input (env): UNLEASH_URL (API base), UNLEASH_API_TOKEN
// (client token), UNLEASH_PROXY_CLIENT_KEYS, PORT. It stops when its parent
// closes stdin, so it never outlives the test.
'use strict';
const { createApp } = require('@unleash/proxy');

const app = createApp({
  unleashUrl: process.env.UNLEASH_URL,
  unleashApiToken: process.env.UNLEASH_API_TOKEN,
  clientKeys: process.env.UNLEASH_PROXY_CLIENT_KEYS.split(','),
  refreshInterval: 1000,
  metricsInterval: 60000,
  enableAllEndpoint: true,
  logLevel: 'error',
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => {
  console.log('listening');
});
process.stdin.on('end', () => { server.close(); process.exit(0); });
process.stdin.resume();
