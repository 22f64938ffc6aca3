const { Strategy } = require('unleash-client');

class Thrower extends Strategy {
  constructor() {
    super('thrower');
  }
  isEnabled() {
    throw new Error('boom');
  }
}

let calls = 0;

module.exports = [
  new Thrower(),
  { name: 'loop', isEnabled: () => { for (;;) {} } },
  { name: 'recurse', isEnabled: function f() { return f() + 1; } },
  { name: 'needsFs', isEnabled: () => require('fs').existsSync('/') },
  { name: 'ok', isEnabled: () => { calls++; return true; } },
];
