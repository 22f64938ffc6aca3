module.exports = [(ctx) => ctx, 42];
