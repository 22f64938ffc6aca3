const leftPad = require('left-pad');
module.exports = [];
