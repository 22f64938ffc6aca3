// Adds a property, and tries to change the environment (which a fixed
// environment option must win over).
module.exports = [
  (ctx) => {
    ctx.properties = ctx.properties || {};
    ctx.properties.enrichedBy = 'go';
    ctx.environment = 'staging';
    return ctx;
  },
];
