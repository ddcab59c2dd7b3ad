import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import sinon from 'sinon';
import { consumerLag, kafkaStatus } from '../../../ops/kafka';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { TEST_SECRET_STORE_KEY, TEST_SIGNING_KEY } from '../../support/secrets';

const run = promisify(execFile);
const tsx = path.resolve('node_modules/.bin/tsx');

describe('ops kafka status', function () {
  this.timeout(120_000);
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform();
    const user = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    await t.api.post(
      '/ingest/rrc-scrape',
      { data_types: ['operators'], district: '01', date_range: { from: '2025-01-01', to: '2025-01-31' } },
      user.headers,
    );
  });
  after(() => t.close());

  it('without a broker shows the bridge backlog in the log and says the broker is off', async () => {
    const { stdout } = await run(tsx, ['ops/cli.ts', 'kafka', 'status'], {
      env: {
        ...process.env,
        DATABASE_URL: t.platform.db.url,
        AUDIT_SIGNING_KEY: TEST_SIGNING_KEY,
        SECRET_STORE_KEY: TEST_SECRET_STORE_KEY,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        KAFKA_BROKERS: '',
      },
    });
    expect(stdout).to.match(/^topic: entity-extraction-worker$/m);
    expect(stdout).to.match(/^bridge lag: 2 events in the log not yet acknowledged by the broker$/m);
    expect(stdout).to.match(/^broker: off/m);
  });

  it("with a broker shows the consumer group's lag per partition", async () => {
    const admin = {
      fetchTopicOffsets: sinon.stub().resolves([
        { partition: 1, offset: '7', high: '7', low: '0' },
        { partition: 0, offset: '10', high: '10', low: '0' },
        { partition: 2, offset: '4', high: '4', low: '2' },
      ]),
      fetchOffsets: sinon.stub().resolves([
        {
          topic: 'entity-extraction-worker',
          partitions: [
            { partition: 0, offset: '6' },
            { partition: 1, offset: '7' },
            { partition: 2, offset: '-1' },
          ],
        },
      ]),
    };
    expect(await consumerLag(admin, 'entity-extraction-worker', 'graph-consumer')).to.deep.equal([
      { partition: 0, high: 10, committed: 6, lag: 4 },
      { partition: 1, high: 7, committed: 7, lag: 0 },
      { partition: 2, high: 4, committed: null, lag: 2 },
    ]);
    const lines = await kafkaStatus(t.deps.store, t.deps.knex, admin);
    expect(lines).to.include('consumer group graph-consumer: lag 6');
    expect(admin.fetchOffsets.firstCall.args[0]).to.deep.equal({
      groupId: 'graph-consumer',
      topics: ['entity-extraction-worker'],
    });
  });
});
