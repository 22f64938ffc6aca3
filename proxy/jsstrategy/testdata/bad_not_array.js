module.exports = { name: 'x', isEnabled: () => true };
