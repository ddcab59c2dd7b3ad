import { expect } from 'chai';
import { decideRecordAuditExport, recordAuditExportDecider } from '../../../commands/audit/record-export';
import { contexts } from '../../../src/contexts';
import { shown, typeInWords } from '../../../src/platform/audit/catalog';
import { AuditUsageError, buildAuditRegistry } from '../../../src/platform/audit/registry';
import { parseReviewDate } from '../../../src/contexts/audit/review';
import { diff, flatten } from '../../../src/contexts/audit/timeline';
import type { ContextModule } from '../../../src/platform/context-module';
import { userEvolution } from '../../../streams/identity/user';
import { given } from '../../support/given';

const T = '11111111-2222-3333-4444-555555555555';

describe('audit registry (one catalog per context)', () => {
  const registry = buildAuditRegistry(contexts);

  it('every product context with aggregates registers a catalog; the reviewer flags they answer are listed', () => {
    expect(registry.contexts).to.include.members([
      'identity',
      'settings',
      'conversations',
      'graph',
      'prompts',
      'connectors',
      'approvals',
      'checklists',
      'agents',
      'compliance',
      'monitoring',
      'audit',
    ]);
    expect(registry.flags).to.include.members([
      'user',
      'well',
      'entity',
      'conversation',
      'project',
      'prompt',
      'connector',
      'settings',
      'approval',
      'checklist',
    ]);
  });

  it('maps a stream back to its entity with the same stream-name helper the commands use', () => {
    expect(registry.entityOf(userEvolution.stream(T, 'u-1'), T)).to.deep.equal({
      kind: 'user',
      id: 'u-1',
      known: true,
    });
    expect(registry.entityOf(`settings.tenant-${T}-${T}`, T)).to.deep.equal({
      kind: 'tenant-settings',
      id: T,
      known: true,
    });
    expect(registry.entityOf(`settings.user-override-${T}-u-2`, T)).to.deep.equal({
      kind: 'user-budget-override',
      id: 'u-2',
      known: true,
    });
    expect(registry.streamOf({ kind: 'vertex', id: 'v-9' }, T)).to.equal(`graph.vertex-${T}-v-9`);
  });

  it('a stream of a context without a catalog yet still reads by convention, marked unknown', () => {
    expect(registry.entityOf(`evaluation.run-${T}-r-1`, T)).to.deep.equal({
      kind: 'evaluation.run',
      id: 'r-1',
      known: false,
    });
    expect(registry.entityOf(`approvals.approval-${T}-a-1`, T)).to.deep.equal({
      kind: 'approval',
      id: 'a-1',
      known: true,
    });
    expect(registry.entityOf(`monitoring.event-${T}-e-1`, T)).to.deep.equal({
      kind: 'operational-event',
      id: 'e-1',
      known: true,
    });
    expect(registry.entityOf(`monitoring.event-type-${T}-t-1`, T)).to.deep.equal({
      kind: 'operational-event-type',
      id: 't-1',
      known: true,
    });
  });

  it('a flag no registered context answers fails with a message listing the flags that do', async () => {
    let error: unknown;
    try {
      await registry.find({ knex: undefined as never }, 'incident', T, 'i-1');
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(AuditUsageError);
    expect((error as Error).message).to.match(/^--incident: no context answers it on this build .*--approval.*--user/);
  });

  it('refuses a catalog whose stream name does not start with a prefix, and a kind declared twice', () => {
    const bad: ContextModule = {
      name: 'bad',
      audit: { aggregates: [{ kind: 'x', aggregate: { ...userEvolution, stream: (t, id) => `${t}-${id}` } }] },
    };
    expect(() => buildAuditRegistry([bad])).to.throw(/must start with a prefix/);
    const twice: ContextModule = { name: 'twice', audit: { aggregates: [{ kind: 'user', aggregate: userEvolution }] } };
    expect(() => buildAuditRegistry([...contexts, twice])).to.throw(/kind user is declared twice/);
  });
});

describe('audit timeline wording', () => {
  it('reads event types in words', () => {
    expect(typeInWords('RolesChanged')).to.equal('roles changed');
    expect(typeInWords('VertexPropertiesUpdated')).to.equal('vertex properties updated');
    expect(typeInWords('PromptPromotedToPreProduction')).to.equal('prompt promoted to pre production');
  });

  it('lists changed fields before → after as dotted paths, status first, hidden fields left out', () => {
    const before = { status: 'active', roles: ['operator'], passwordRef: 'r1', properties: { oil: '1', gas: '2' } };
    const after = {
      status: 'disabled',
      roles: ['operator', 'reviewer'],
      passwordRef: 'r2',
      properties: { oil: '3', gas: '2', water: '5' },
    };
    expect(diff(before, after, ['passwordRef'])).to.deep.equal([
      { field: 'status', before: 'active', after: 'disabled' },
      { field: 'roles', before: ['operator'], after: ['operator', 'reviewer'] },
      { field: 'properties.oil', before: '1', after: '3' },
      { field: 'properties.water', before: null, after: '5' },
    ]);
    expect(flatten({ a: { b: { c: { d: 1 } } } })).to.deep.equal({ 'a.b.c': { d: 1 } });
    expect(shown(null)).to.equal('(none)');
    expect(shown(['a', 'b'])).to.equal('[a, b]');
  });

  it('the identity catalog says "roles changed from [operator] to [operator, reviewer]"', () => {
    const identity = contexts.find((c) => c.name === 'identity')!.audit!.aggregates.find((a) => a.kind === 'user')!;
    const text = identity.describe!(
      { type: 'RolesChanged', data: { roles: ['operator', 'reviewer'] } },
      { status: 'active', roles: ['operator'] },
      { status: 'active', roles: ['operator', 'reviewer'] },
    );
    expect(text).to.equal('roles changed from [operator] to [operator, reviewer]');
  });
});

describe('audit review dates (--from, --to, --as-of)', () => {
  it('takes ISO 8601 dates and date-times; a bare date is the start of the day for --from and its end for --to', () => {
    expect(parseReviewDate('from', '2026-03-03').toISOString()).to.equal('2026-03-03T00:00:00.000Z');
    expect(parseReviewDate('to', '2026-03-03', true).toISOString()).to.equal('2026-03-03T23:59:59.999Z');
    expect(parseReviewDate('from', '2026-03-03T14:30:00+02:00').toISOString()).to.equal('2026-03-03T12:30:00.000Z');
    expect(parseReviewDate('from', '2026-03-03 14:30').toISOString()).to.equal('2026-03-03T14:30:00.000Z');
  });

  it('an unparsable date names the flag and the expected format', () => {
    expect(() => parseReviewDate('as-of', 'March 3rd')).to.throw(
      AuditUsageError,
      '--as-of: "March 3rd" is not a date; expected ISO 8601, e.g. 2026-03-03 or 2026-03-03T14:30:00Z',
    );
    expect(() => parseReviewDate('to', '2026-13-45')).to.throw(AuditUsageError, /--to/);
  });
});

describe('recording an audit export', () => {
  const command = {
    type: 'RecordAuditExport' as const,
    exportId: 'e-1',
    format: 'xlsx' as const,
    filters: { user: 'ann@example.com' },
    via: 'http' as const,
  };

  it('records who exported what, once', () => {
    given(recordAuditExportDecider)
      .when(command)
      .then([
        {
          type: 'AuditTrailExported',
          data: {
            exportId: 'e-1',
            format: 'xlsx',
            filters: { user: 'ann@example.com' },
            via: 'http',
            at: '2026-01-15T12:00:00.000Z',
          },
        },
      ]);
    const recorded = decideRecordAuditExport(command, { status: 'none' }, new Date('2026-01-15T12:00:00Z'));
    given(recordAuditExportDecider, recorded).when(command).thenNothing();
  });
});
