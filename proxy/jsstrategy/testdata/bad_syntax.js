module.exports = [ { name: 'x', isEnabled() { return true } ;
