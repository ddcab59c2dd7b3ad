import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { TEST_SECRET_STORE_KEY, TEST_SIGNING_KEY } from '../../support/secrets';

const run = promisify(execFile);
const tsx = path.resolve('node_modules/.bin/tsx');

/** The audit review from the operator's shell: `ops audit replay` and `ops audit state` by reviewer keys. */
describe('ops audit replay / state (CLI)', () => {
  let t: TestPlatform;
  let admin: Session;
  let tenantId: string;
  let betweenEdits: string;
  const apiNumber = '42-329-31234';

  async function ops(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env = {
      ...process.env,
      DATABASE_URL: t.deps.config.databaseUrl!,
      AUDIT_SIGNING_KEY: TEST_SIGNING_KEY,
      SECRET_STORE_KEY: TEST_SECRET_STORE_KEY,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
    };
    try {
      const { stdout, stderr } = await run(tsx, ['ops/cli.ts', 'audit', ...args], { env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  before(async () => {
    t = await startTestPlatform();
    tenantId = randomUUID();
    admin = await signIn(t, { roles: ['admin'], tenantId });
    const created = await t.api.post(
      '/graph/entities',
      { label: 'Well', properties: { entity_id: 'W-77', api_number: apiNumber, oil_bbls: 1200 } },
      admin.headers,
    );
    expect(created.status).to.equal(201);
    await new Promise((r) => setTimeout(r, 20));
    betweenEdits = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const updated = await t.api.put('/graph/entities/Well/W-77', { properties: { oil_bbls: 1350 } }, admin.headers);
    expect(updated.status).to.equal(200);
  });
  after(() => t.close());

  it('replays a well by API number as JSON: what changed, before → after, who (e-mail and roles), verified', async () => {
    const cli = await ops('replay', '--well', apiNumber, '--tenant', tenantId, '--format', 'json');
    expect(cli.code, cli.stderr).to.equal(0);
    const body = JSON.parse(cli.stdout);
    expect(body.filters).to.deep.equal({ well: apiNumber });
    expect(body.events.map((e: { type: string }) => e.type)).to.deep.equal([
      'VertexCreated',
      'VertexPropertiesUpdated',
    ]);
    const update = body.events[1];
    expect(update.summary).to.equal('vertex properties updated');
    expect(update.changes).to.deep.equal([{ field: 'properties.oil_bbls', before: '1200', after: '1350' }]);
    expect(update.actor).to.deep.equal({ id: admin.userId, email: admin.email, roles: ['admin'] });
    expect(update.signature).to.equal('verified');
    expect(body.summary).to.include({ events: 2, verified: 2, tampered: 0 });
    expect(body.summary.anchor.digest).to.match(/^[0-9a-f]{64}$/);
  });

  it('the same well by --entity Label:entity_id, written to an XLSX file, the export itself recorded', async () => {
    const file = path.join(os.tmpdir(), `audit-${randomUUID()}.xlsx`);
    const cli = await ops('replay', '--entity', 'Well:W-77', '--tenant', tenantId, '--format', 'xlsx', '--out', file);
    expect(cli.code, cli.stderr).to.equal(0);
    expect(cli.stderr).to.match(/2 events written .* \(export [0-9a-f-]{36} recorded\); all verified/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await readFile(file)) as unknown as ArrayBuffer);
    expect(workbook.worksheets.map((w) => w.name)).to.deep.equal(['Cover', 'Well W-77']);
    const recorded = await t.deps.knex('audit_event_index').where({ tenant_id: tenantId, type: 'AuditTrailExported' });
    expect(recorded.length).to.be.at.least(1);
    expect(recorded.every((r: { actor_id: string }) => r.actor_id === '00000000-0000-0000-0000-000000000000')).to.equal(
      true,
    );
  });

  it('reconstructs the well as it stood between the two edits (state --as-of)', async () => {
    const cli = await ops('state', '--well', apiNumber, '--tenant', tenantId, '--as-of', betweenEdits);
    expect(cli.code, cli.stderr).to.equal(0);
    expect(cli.stdout).to.contain(`Well W-77 as of ${betweenEdits}: after 1 events (revision 0`);
    expect(cli.stdout).to.contain('"oil_bbls": "1200"');
    expect(cli.stdout).not.to.contain('"oil_bbls": "1350"');
  });

  it('an unknown e-mail is "nothing found" with exit code 3; a bad date names the flag and the format', async () => {
    const missing = await ops('replay', '--user', 'nobody@example.com', '--tenant', tenantId);
    expect(missing.code).to.equal(3);
    expect(missing.stderr.trim()).to.equal(`nothing found for --user nobody@example.com in tenant ${tenantId}`);
    const badDate = await ops('replay', '--user', admin.email, '--from', '03/03/2026');
    expect(badDate.code).to.equal(1);
    expect(badDate.stderr).to.contain('--from: "03/03/2026" is not a date; expected ISO 8601');
    expect(badDate.stderr).not.to.contain('    at ');
  });
});
