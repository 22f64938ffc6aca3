// Plain objects instead of classes.
const tiny = require('tiny'); // from ./node_modules

module.exports = [
  {
    name: 'even',
    isEnabled(parameters, context) {
      return Number(context.properties.n) % 2 === 0;
    },
  },
  { name: 'env', isEnabled: (parameters, context) => context.environment === parameters.env },
  // An async strategy returns a promise, which is truthy, as in Node.
  { name: 'asyncFalse', isEnabled: async () => false },
  {
    name: 'logs',
    isEnabled(parameters) {
      console.log('checking', { p: parameters.p });
      return true;
    },
  },
  { name: 'tiny', isEnabled: (parameters, context) => tiny(context.userId || '') },
  // require at call time still resolves next to this file.
  { name: 'lazy', isEnabled: (parameters) => require('./lib/util').inList(parameters.list, 'a') },
  // Same name again: the first one wins.
  { name: 'even', isEnabled: () => true },
  // Built-in names are evaluated by the engine, never by the file.
  { name: 'flexibleRollout', isEnabled: () => true },
];
