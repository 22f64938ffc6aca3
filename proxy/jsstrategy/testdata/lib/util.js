// A helper next to the strategies file, loaded with a relative require.
exports.inList = (list, value) => (list || '').split(/,\s*/).includes(value);
