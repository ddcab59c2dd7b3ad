import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/platform/config';
import { TEST_EVIDENCE_KEY } from '../../support/secrets';

const PRODUCTION = {
  NODE_ENV: 'production',
  JWT_SECRET: 'p'.repeat(40),
  AUDIT_SIGNING_KEY: 'a'.repeat(40),
  SECRET_STORE_KEY: 's'.repeat(40),
  BOOTSTRAP_ADMIN_EMAIL: 'root@example.com',
  BOOTSTRAP_ADMIN_PASSWORD: 'a-long-password',
};

describe('configuration: the evidence signing key', () => {
  it('production refuses to start without EVIDENCE_SIGNING_KEY and starts with one', () => {
    expect(() => loadConfig(PRODUCTION)).to.throw(ConfigError, /EVIDENCE_SIGNING_KEY must be set/);
    expect(loadConfig({ ...PRODUCTION, EVIDENCE_SIGNING_KEY: TEST_EVIDENCE_KEY }).evidence).to.deep.equal({
      signingKeyPem: TEST_EVIDENCE_KEY,
      keyFile: null,
    });
  });

  it('takes a PEM whose newlines a one-line variable wrote as \\n', () => {
    const oneLine = TEST_EVIDENCE_KEY.replace(/\n/g, '\\n');
    expect(loadConfig({ ...PRODUCTION, EVIDENCE_SIGNING_KEY: oneLine }).evidence.signingKeyPem).to.equal(
      TEST_EVIDENCE_KEY,
    );
  });

  it('refuses a key that is not an Ed25519 PKCS#8 PEM', () => {
    expect(() => loadConfig({ EVIDENCE_SIGNING_KEY: 'not a key' })).to.throw(
      ConfigError,
      /not a PKCS#8 PEM private key/,
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    expect(() => loadConfig({ EVIDENCE_SIGNING_KEY: rsa })).to.throw(ConfigError, /must be an Ed25519 key, got rsa/);
  });

  it('outside production generates one into DATA_DIR once, readable only by its owner, and keeps it across starts', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'evidence-key-'));
    const first = loadConfig({ DATA_DIR: dataDir });
    expect(first.evidence.keyFile).to.equal(path.join(dataDir, 'evidence-signing-key.pem'));
    expect(readFileSync(first.evidence.keyFile!, 'utf8')).to.equal(first.evidence.signingKeyPem);
    expect(statSync(first.evidence.keyFile!).mode & 0o777).to.equal(0o600);
    expect(first.warnings.join('\n')).to.match(/EVIDENCE_SIGNING_KEY is not set/);
    expect(loadConfig({ DATA_DIR: dataDir }).evidence.signingKeyPem).to.equal(first.evidence.signingKeyPem);
  });
});
