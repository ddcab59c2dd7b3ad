import type { Knex } from 'knex';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Projector } from '../../src/platform/projection-runner/projector';
import { namespaceAggregate, type NamespaceEvent } from '../../streams/prompts/namespace';
import { templateAggregate, type TemplateEvent } from '../../streams/prompts/template';
import { NAMESPACES_TABLE, TEMPLATES_TABLE, TIERS_TABLE, VERSIONS_TABLE } from './tables';

/**
 * Namespaces, budget tiers, templates and versions as the API shows them. A discarded draft
 * and a deleted template's rows go away (their events stay in the signed log).
 */
const json = (value: unknown) => JSON.stringify(value);

async function applyNamespace(trx: Knex.Transaction, tenantId: string, event: NamespaceEvent): Promise<void> {
  switch (event.type) {
    case 'PromptNamespaceCreated': {
      const d = event.data;
      await trx(NAMESPACES_TABLE)
        .insert({
          id: d.namespaceId,
          tenant_id: tenantId,
          name: d.name,
          description: d.description,
          created_by: d.createdBy,
          created_at: d.createdAt,
          updated_at: d.createdAt,
        })
        .onConflict('id')
        .ignore();
      return;
    }
    case 'PromptNamespaceUpdated':
      await trx(NAMESPACES_TABLE)
        .where({ id: event.data.namespaceId })
        .update({ description: event.data.description, updated_at: event.data.updatedAt });
      return;
    case 'PromptBudgetTierCreated': {
      const d = event.data;
      await trx(TIERS_TABLE)
        .insert({
          id: d.tierId,
          tenant_id: tenantId,
          namespace_id: d.namespaceId,
          name: d.name,
          max_tokens: d.maxTokens,
          description: d.description,
          created_at: d.createdAt,
          updated_at: d.createdAt,
        })
        .onConflict('id')
        .ignore();
      return;
    }
    case 'PromptBudgetTierUpdated': {
      const d = event.data;
      await trx(TIERS_TABLE)
        .where({ id: d.tierId })
        .update({ name: d.name, max_tokens: d.maxTokens, description: d.description, updated_at: d.updatedAt });
      return;
    }
    case 'PromptBudgetTierDeleted':
      await trx(TIERS_TABLE).where({ id: event.data.tierId }).delete();
      await trx(TEMPLATES_TABLE).where({ budget_tier_id: event.data.tierId }).update({ budget_tier_id: null });
      return;
  }
}

async function applyTemplate(trx: Knex.Transaction, tenantId: string, event: TemplateEvent): Promise<void> {
  const versions = () => trx(VERSIONS_TABLE).where({ id: (event.data as { versionId: string }).versionId });
  switch (event.type) {
    case 'PromptTemplateCreated': {
      const d = event.data;
      await trx(TEMPLATES_TABLE)
        .insert({
          id: d.templateId,
          tenant_id: tenantId,
          namespace_id: d.namespaceId,
          namespace_name: d.namespaceName,
          slug: d.slug,
          name: d.name,
          description: d.description,
          budget_tier_id: d.budgetTierId,
          variables: d.variables ? json(d.variables) : null,
          created_by: d.createdBy,
          created_at: d.createdAt,
          updated_at: d.createdAt,
        })
        .onConflict('id')
        .ignore();
      return;
    }
    case 'PromptTemplateUpdated': {
      const d = event.data;
      const patch: Record<string, unknown> = { updated_at: d.updatedAt };
      if (d.name !== undefined) patch.name = d.name;
      if (d.description !== undefined) patch.description = d.description;
      if (d.budgetTierId !== undefined) patch.budget_tier_id = d.budgetTierId;
      if (d.variables !== undefined) patch.variables = d.variables ? json(d.variables) : null;
      await trx(TEMPLATES_TABLE).where({ id: d.templateId }).update(patch);
      return;
    }
    case 'PromptTemplateDeleted':
      await trx(VERSIONS_TABLE).where({ template_id: event.data.templateId }).delete();
      await trx(TEMPLATES_TABLE).where({ id: event.data.templateId }).delete();
      return;
    case 'PromptDraftCreated': {
      const d = event.data;
      await trx(VERSIONS_TABLE)
        .insert({
          id: d.versionId,
          tenant_id: tenantId,
          template_id: d.templateId,
          version_number: d.versionNumber,
          status: 'draft',
          body: d.body,
          rendered_token_estimate: d.tokenEstimate,
          validation_result: json(d.validation),
          author_id: d.authorId,
          change_note: d.changeNote,
          target_users: '[]',
          target_roles: '[]',
          created_at: d.createdAt,
          updated_at: d.createdAt,
        })
        .onConflict('id')
        .ignore();
      return;
    }
    case 'PromptDraftSaved': {
      const d = event.data;
      await versions().update({
        body: d.body,
        rendered_token_estimate: d.tokenEstimate,
        validation_result: json(d.validation),
        ...(d.changeNote === null ? {} : { change_note: d.changeNote }),
        updated_at: d.savedAt,
      });
      return;
    }
    case 'PromptDraftDiscarded':
      await versions().delete();
      return;
    case 'PromptPromotedToPreProduction': {
      const d = event.data;
      await versions().update({
        status: 'pre_production',
        target_users: json(d.targetUsers),
        target_roles: json(d.targetRoles),
        pre_production_at: d.promotedAt,
        updated_at: d.promotedAt,
      });
      if (d.displacedVersionId)
        await trx(VERSIONS_TABLE)
          .where({ id: d.displacedVersionId })
          .update({ status: 'retired', retired_at: d.promotedAt, updated_at: d.promotedAt });
      return;
    }
    case 'PromptApproved':
      await versions().update({
        approved_by: event.data.approvedBy,
        approved_at: event.data.approvedAt,
        updated_at: event.data.approvedAt,
      });
      return;
    case 'PromptRejected': {
      const d = event.data;
      await versions().update({
        status: 'rejected',
        rejected_by: d.rejectedBy,
        rejected_at: d.rejectedAt,
        reject_reason: d.reason,
        updated_at: d.rejectedAt,
      });
      return;
    }
    case 'PromptPromoted': {
      const d = event.data;
      if (d.retiredVersionId)
        await trx(VERSIONS_TABLE)
          .where({ id: d.retiredVersionId })
          .update({ status: 'retired', retired_at: d.promotedAt, updated_at: d.promotedAt });
      await versions().update({
        status: 'active',
        promoted_by: d.promotedBy,
        promoted_at: d.promotedAt,
        retired_at: null,
        updated_at: d.promotedAt,
      });
      return;
    }
  }
}

const NAMESPACE_TYPES = new Set<string>(namespaceAggregate.eventTypes);

export const promptCatalogProjector: Projector = {
  name: 'prompts_catalog',
  consistency: 'inline',
  version: 1,
  tables: [VERSIONS_TABLE, TEMPLATES_TABLE, TIERS_TABLE, NAMESPACES_TABLE],
  eventTypes: [...namespaceAggregate.eventTypes, ...templateAggregate.eventTypes],
  async createTables(knex) {
    await knex.schema.createTable(NAMESPACES_TABLE, (t) => {
      t.uuid('id').primary();
      t.text('tenant_id').notNullable();
      t.text('name').notNullable();
      t.text('description').notNullable();
      t.text('created_by').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.index(['tenant_id', 'name']);
    });
    await knex.schema.createTable(TIERS_TABLE, (t) => {
      t.uuid('id').primary();
      t.text('tenant_id').notNullable();
      t.uuid('namespace_id').notNullable();
      t.text('name').notNullable();
      t.integer('max_tokens').notNullable();
      t.text('description').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.index(['tenant_id', 'namespace_id']);
    });
    await knex.schema.createTable(TEMPLATES_TABLE, (t) => {
      t.uuid('id').primary();
      t.text('tenant_id').notNullable();
      t.uuid('namespace_id').notNullable();
      t.text('namespace_name').notNullable();
      t.text('slug').notNullable();
      t.text('name').notNullable();
      t.text('description').notNullable();
      t.uuid('budget_tier_id');
      t.jsonb('variables');
      t.text('created_by').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.index(['tenant_id', 'namespace_name', 'slug']);
    });
    await knex.schema.createTable(VERSIONS_TABLE, (t) => {
      t.uuid('id').primary();
      t.text('tenant_id').notNullable();
      t.uuid('template_id').notNullable();
      t.integer('version_number').notNullable();
      t.text('status').notNullable();
      t.text('body').notNullable();
      t.integer('rendered_token_estimate').notNullable();
      t.jsonb('validation_result').notNullable();
      t.text('author_id').notNullable();
      t.text('change_note').notNullable();
      t.jsonb('target_users').notNullable();
      t.jsonb('target_roles').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.timestamp('pre_production_at', { useTz: true });
      t.text('approved_by');
      t.timestamp('approved_at', { useTz: true });
      t.text('rejected_by');
      t.timestamp('rejected_at', { useTz: true });
      t.text('reject_reason');
      t.text('promoted_by');
      t.timestamp('promoted_at', { useTz: true });
      t.timestamp('retired_at', { useTz: true });
      t.index(['tenant_id', 'template_id', 'status']);
      t.index(['tenant_id', 'status']);
    });
  },
  async apply(trx, event: RecordedEvent) {
    const tenantId = String(event.metadata.tenantId);
    if (NAMESPACE_TYPES.has(event.type)) await applyNamespace(trx, tenantId, namespaceAggregate.read(event));
    else await applyTemplate(trx, tenantId, templateAggregate.read(event));
  },
};
