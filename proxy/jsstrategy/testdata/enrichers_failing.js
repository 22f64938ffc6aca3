// Each enricher fails when the context asks it to.
module.exports = [
  (ctx) => {
    ctx.userId = 'changed';
    return ctx;
  },
  (ctx) => {
    if (ctx.properties.fail === 'throw') throw new Error('nope');
    return ctx;
  },
  (ctx) => {
    if (ctx.properties.fail === 'loop') for (;;) {}
    return ctx;
  },
  async (ctx) => {
    if (ctx.properties.fail === 'reject') throw new Error('rejected');
    return ctx;
  },
  (ctx) => (ctx.properties.fail === 'number' ? 42 : ctx),
  (ctx) => (ctx.properties.fail === 'pending' ? new Promise(() => {}) : ctx),
  (ctx) => {
    if (ctx.properties.fail === 'date') ctx.currentTime = 'not a date';
    return ctx;
  },
];
