// Enrichers in the shapes the Node proxy accepts.
module.exports = [
  // Mutates and returns nothing.
  (ctx) => {
    ctx.properties.country = 'NO';
  },
  // Returns a new object.
  (ctx) => ({ ...ctx, userId: 'user-' + ctx.userId, sessionId: undefined }),
  // Async, with a top-level field that becomes a property.
  async (ctx) => {
    ctx.properties.tier = await Promise.resolve('gold');
    ctx.properties.score = 42;
    ctx.properties.nested = { no: 'objects' };
    delete ctx.properties.drop;
    ctx.region = 'eu';
    return ctx;
  },
  (ctx) => {
    if (ctx.properties.setTime) ctx.currentTime = ctx.properties.setTime;
    return ctx;
  },
];
