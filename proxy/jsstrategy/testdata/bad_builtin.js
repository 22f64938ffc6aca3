const fs = require('fs');
module.exports = [];
