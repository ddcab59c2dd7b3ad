import { expect } from 'chai';
import type { Knex } from 'knex';
import type { DomainPack } from '../../commands/compliance/packs/pack';
import { runPacks } from '../../commands/compliance/run-packs';
import { CELLS } from '../../projections/compliance/tables';
import { cellFingerprint } from '../../streams/compliance/assessment';

/**
 * The incremental path's invariant: the dashboard's current verdicts are exactly what a whole
 * run of the packs over the graph judges on `day`. A deleted entity's last verdicts stay
 * recorded but it is no longer in the graph, so only the entities the whole run finds count.
 */
export async function expectCellsOfWholeRun(
  knex: Knex,
  tenantId: string,
  packs: DomainPack<any>[],
  day: string,
  message?: string,
): Promise<void> {
  const whole = await runPacks(knex, tenantId, packs, day);
  const expected = whole.entities
    .flatMap((e) => e.cells.map((c) => `${e.entityId}/${c.domain}/${cellFingerprint(c)}`))
    .sort();
  const current = await knex(CELLS)
    .where({ tenant_id: tenantId })
    .whereNull('valid_to')
    .whereIn('entity_id', whole.entityIds)
    .select('entity_id', 'domain', 'fingerprint');
  expect(current.map((r) => `${r.entity_id}/${r.domain}/${r.fingerprint}`).sort(), message).to.deep.equal(expected);
}
