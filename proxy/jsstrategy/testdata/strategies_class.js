'use strict';
// The usual shape of a Node proxy strategies file: classes extending the
// SDK's Strategy.
const { Strategy } = require('unleash-client');
const proxy = require('@unleash/proxy');
const deep = require('unleash-client/lib/strategy/strategy');
const { inList } = require('./lib/util');

class UserList extends Strategy {
  constructor() {
    super('userList');
  }
  isEnabled(parameters, context) {
    return inList(parameters.users, context.userId);
  }
}

class Country extends proxy.Strategy {
  constructor() {
    super('country');
  }
  isEnabled(parameters, context) {
    return parameters.countries.split(',').includes(context.properties.country);
  }
}

// Returns non-booleans, to check JS truthiness.
class Truthy extends Strategy {
  constructor() {
    super('truthy');
  }
  isEnabled(parameters) {
    return { one: 1, str: 'yes', obj: {}, zero: 0, empty: '', nan: NaN, nul: null }[parameters.value];
  }
}

// Does not override isEnabled: the base class returns returnValue.
class AlwaysOn extends Strategy {
  constructor() {
    super('alwaysOn', true);
  }
}

// Records what it was called with, for the test to read back.
class Echo extends Strategy {
  constructor() {
    super('echo');
  }
  isEnabled(parameters, context) {
    const t = context.currentTime;
    globalThis.lastSeen = JSON.stringify({
      userId: context.userId,
      sessionId: context.sessionId,
      remoteAddress: context.remoteAddress,
      environment: context.environment,
      appName: context.appName,
      currentTime: t instanceof Date ? t.toISOString() : typeof t,
      properties: context.properties,
      parameters,
      keys: Object.keys(context).sort().join(','),
      sameClass: Strategy === proxy.Strategy && Strategy === deep.Strategy,
    });
    return true;
  }
}

module.exports = [new UserList(), new Country(), new Truthy(), new AlwaysOn(), new Echo()];
