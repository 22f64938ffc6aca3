// Reaches outside its own directory, which is not allowed.
const { inList } = require('../lib/util');
module.exports = [];
