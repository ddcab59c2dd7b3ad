import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/platform/config';

describe('evaluation config', () => {
  it('the Langfuse mirror is off unless all three variables are set; a partial set is an error', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).evaluation).to.deep.equal({ langfuse: null, snapshotRetryMs: 2000 });
    const on = loadConfig({
      NODE_ENV: 'test',
      LANGFUSE_PUBLIC_KEY: 'pk',
      LANGFUSE_SECRET_KEY: 'sk',
      LANGFUSE_HOST: 'https://cloud.langfuse.com/',
    });
    expect(on.evaluation.langfuse).to.deep.equal({
      host: 'https://cloud.langfuse.com',
      publicKey: 'pk',
      secretKey: 'sk',
    });
    expect(() => loadConfig({ NODE_ENV: 'test', LANGFUSE_PUBLIC_KEY: 'pk' })).to.throw(ConfigError, /go together/);
  });
});
