import { expect } from 'chai';
import { ConfigError, DEV_JWT_SECRET, loadConfig } from '../../../src/platform/config';

describe('configuration', () => {
  it('defaults to the embedded set-up: ports 8080/8081, ./.data, Postgres event store, no Redis', () => {
    const config = loadConfig({});
    expect(config.http).to.include({ port: 8080, internalPort: 8081, trustProxy: false });
    expect(config.dataDir).to.equal('./.data');
    expect(config.databaseUrl).to.equal(undefined);
    expect(config.eventStore).to.deep.equal({ kind: 'postgres', groupCommit: 0 });
    expect(config.redisUrl).to.equal(undefined);
    expect(config.rateLimit).to.deep.equal({ perMinute: 600, burst: 100 });
  });

  it('development defaults for secrets are used with a warning outside production', () => {
    const config = loadConfig({ NODE_ENV: 'development' });
    expect(config.jwtSecret).to.equal(DEV_JWT_SECRET);
    expect(config.warnings.join('\n'))
      .to.match(/JWT_SECRET/)
      .and.to.match(/AUDIT_SIGNING_KEY/)
      .and.to.match(/BOOTSTRAP_ADMIN_EMAIL/);
  });

  it('production refuses to start without real secrets', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).to.throw(ConfigError, /JWT_SECRET must be set/);
  });

  it('refuses a JWT secret shorter than 32 bytes', () => {
    expect(() => loadConfig({ JWT_SECRET: 'short' })).to.throw(ConfigError, /at least 32 bytes/);
  });

  it('EVENT_STORE=esdb needs EVENTSTORE_URL', () => {
    expect(() => loadConfig({ EVENT_STORE: 'esdb' })).to.throw(ConfigError, /EVENTSTORE_URL/);
    expect(
      loadConfig({ EVENT_STORE: 'esdb', EVENTSTORE_URL: 'esdb://localhost:2113?tls=false' }).eventStore,
    ).to.deep.equal({ kind: 'esdb', url: 'esdb://localhost:2113?tls=false' });
  });

  it('METRICS_TOKEN opens the public /metrics only when set and long enough; tenant labels default to 50', () => {
    expect(loadConfig({}).metrics).to.deep.equal({ token: null, tenantLabels: 50 });
    expect(loadConfig({ METRICS_TOKEN: '' }).metrics.token).to.equal(null);
    expect(loadConfig({ METRICS_TOKEN: 'a-scrape-token-of-32-characters!' }).metrics.token).to.equal(
      'a-scrape-token-of-32-characters!',
    );
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).to.throw(ConfigError, /METRICS_TOKEN/);
    expect(loadConfig({ METRICS_TENANT_LABELS: '0' }).metrics.tenantLabels).to.equal(0);
    expect(() => loadConfig({ METRICS_TENANT_LABELS: '-1' })).to.throw(ConfigError, /METRICS_TENANT_LABELS/);
  });

  it('TRUST_PROXY accepts true, false or a hop count and nothing else', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).http.trustProxy).to.equal(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).http.trustProxy).to.equal(2);
    expect(() => loadConfig({ TRUST_PROXY: 'maybe' })).to.throw(ConfigError);
  });

  it('DATABASE_PREPARED_STATEMENTS is on unless set off, and nothing else', () => {
    expect(loadConfig({}).database.preparedStatements).to.equal(true);
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'off' }).database.preparedStatements).to.equal(false);
    expect(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: 'no' })).to.throw(
      ConfigError,
      /DATABASE_PREPARED_STATEMENTS/,
    );
  });

  it('names every invalid variable in one error', () => {
    expect(() => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud' }))
      .to.throw(ConfigError, /PORT/)
      .and.to.match(/LOG_LEVEL/);
  });

  it('splits KAFKA_BROKERS into a list', () => {
    expect(loadConfig({ KAFKA_BROKERS: 'k1:9092, k2:9092' }).kafkaBrokers).to.deep.equal(['k1:9092', 'k2:9092']);
  });
});
