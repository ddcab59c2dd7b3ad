import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/platform/config';
import { TEST_EVIDENCE_KEY } from '../../support/secrets';

const production = {
  NODE_ENV: 'production',
  JWT_SECRET: 'j'.repeat(32),
  AUDIT_SIGNING_KEY: 'a'.repeat(32),
  SECRET_STORE_KEY: 's'.repeat(32),
  BOOTSTRAP_ADMIN_EMAIL: 'ops@operator.example',
  BOOTSTRAP_ADMIN_PASSWORD: 'a-real-password',
  EVIDENCE_SIGNING_KEY: TEST_EVIDENCE_KEY,
};

describe('identity configuration in production', () => {
  it('starts with every secret given', () => {
    expect(loadConfig(production).warnings).to.deep.equal([]);
  });
  for (const name of [
    'JWT_SECRET',
    'SECRET_STORE_KEY',
    'BOOTSTRAP_ADMIN_EMAIL',
    'BOOTSTRAP_ADMIN_PASSWORD',
    'EVIDENCE_SIGNING_KEY',
  ]) {
    it(`refuses to start without ${name}`, () => {
      const env: Record<string, string> = { ...production };
      delete env[name];
      expect(() => loadConfig(env)).to.throw(ConfigError, name);
    });
  }
  it('refuses a JWT_SECRET under 32 bytes and a bcrypt cost under 10', () => {
    expect(() => loadConfig({ ...production, JWT_SECRET: 'short' })).to.throw(ConfigError, /32 bytes/);
    expect(() => loadConfig({ ...production, BCRYPT_COST: '8' })).to.throw(ConfigError);
  });
  it('outside production, development defaults are used with a warning', () => {
    const config = loadConfig({ NODE_ENV: 'development' });
    expect(config.bootstrapAdmin.fromDefaults).to.equal(true);
    expect(config.warnings.join('\n'))
      .to.match(/BOOTSTRAP_ADMIN_PASSWORD/)
      .and.to.match(/SECRET_STORE_KEY/);
    expect(config.bcryptCost).to.equal(12);
  });
});
