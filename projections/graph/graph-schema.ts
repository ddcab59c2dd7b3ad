import type { Knex } from 'knex';
import type { Projector } from '../../src/platform/projection-runner/projector';
import { readSchemaEvent, SCHEMA_EVENT_TYPES } from '../../streams/graph/schema';

/** Entity types, relationship types and relationship rules as configured right now. */
export const ENTITY_TYPES = 'graph_entity_types';
export const RELATIONSHIP_TYPES = 'graph_relationship_types';
export const RELATIONSHIP_RULES = 'graph_relationship_rules';

async function createTables(knex: Knex): Promise<void> {
  await knex.schema.createTable(ENTITY_TYPES, (t) => {
    t.text('key').primary();
    t.text('label').notNullable().unique();
    t.jsonb('definition').notNullable();
    t.text('source').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  await knex.schema.createTable(RELATIONSHIP_TYPES, (t) => {
    t.text('key').primary();
    t.jsonb('definition').notNullable();
    t.text('source').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  await knex.schema.createTable(RELATIONSHIP_RULES, (t) => {
    t.text('id').primary();
    t.text('edge_label').notNullable().index();
    t.text('from_label').notNullable();
    t.text('to_label').notNullable();
    t.text('source').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
}

export const graphSchemaProjector: Projector = {
  name: 'graph_schema',
  consistency: 'inline',
  version: 1,
  tables: [ENTITY_TYPES, RELATIONSHIP_TYPES, RELATIONSHIP_RULES],
  createTables,
  eventTypes: SCHEMA_EVENT_TYPES,
  async apply(trx, recorded) {
    const event = readSchemaEvent(recorded);
    const at = recorded.recordedAt;
    switch (event.type) {
      case 'GraphVerticalInstalled': {
        const source = `vertical:${event.data.vertical}@${event.data.version}`;
        // A later vertical version never overwrites what an administrator changed.
        for (const d of event.data.entityTypes) {
          await trx(ENTITY_TYPES)
            .insert({ key: d.key, label: d.label, definition: JSON.stringify(d), source, updated_at: at })
            .onConflict()
            .ignore();
        }
        for (const d of event.data.relationshipTypes) {
          await trx(RELATIONSHIP_TYPES)
            .insert({ key: d.key, definition: JSON.stringify(d), source, updated_at: at })
            .onConflict()
            .ignore();
        }
        for (const r of event.data.relationshipRules) {
          await trx(RELATIONSHIP_RULES)
            .insert({ ...r, source, updated_at: at })
            .onConflict()
            .ignore();
        }
        return;
      }
      case 'EntityTypeDefined':
      case 'EntityTypeChanged': {
        const d = event.data.definition;
        await trx(ENTITY_TYPES)
          .insert({ key: d.key, label: d.label, definition: JSON.stringify(d), source: 'custom', updated_at: at })
          .onConflict('key')
          .merge(['label', 'definition', 'source', 'updated_at']);
        return;
      }
      case 'EntityTypeRemoved':
        await trx(ENTITY_TYPES).where({ key: event.data.key }).delete();
        return;
      case 'RelationshipTypeDefined':
      case 'RelationshipTypeChanged': {
        const d = event.data.definition;
        await trx(RELATIONSHIP_TYPES)
          .insert({ key: d.key, definition: JSON.stringify(d), source: 'custom', updated_at: at })
          .onConflict('key')
          .merge(['definition', 'source', 'updated_at']);
        return;
      }
      case 'RelationshipTypeRemoved':
        await trx(RELATIONSHIP_TYPES).where({ key: event.data.key }).delete();
        await trx(RELATIONSHIP_RULES).where({ edge_label: event.data.key }).delete();
        return;
      case 'RelationshipRuleAdded':
        await trx(RELATIONSHIP_RULES)
          .insert({ ...event.data.rule, source: 'custom', updated_at: at })
          .onConflict('id')
          .merge();
        return;
      case 'RelationshipRuleRemoved':
        await trx(RELATIONSHIP_RULES).where({ id: event.data.id }).delete();
        return;
    }
  },
};
