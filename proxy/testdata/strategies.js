// A custom strategy in the shape @unleash/proxy users already have.
class CompanyStrategy {
  constructor() {
    this.name = 'companyStrategy';
  }
  isEnabled(parameters, context) {
    return parameters.team === 'core' && context.userId === 'carol';
  }
}
module.exports = [new CompanyStrategy()];
