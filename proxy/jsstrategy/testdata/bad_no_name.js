module.exports = [{ name: 'ok', isEnabled: () => true }, { isEnabled: () => true }];
