// Transpiled ES modules export { default: [...] }.
Object.defineProperty(exports, '__esModule', { value: true });
exports.default = [{ name: 'wrapped', isEnabled: () => true }];
