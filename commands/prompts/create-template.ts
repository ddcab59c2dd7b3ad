import { z } from 'zod';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { newId } from '../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import { promptResolveCache } from './resolve-cache';
import { findNamespace, findTier } from '../../queries/prompts/namespaces';
import {
  TEMPLATE_SLUG,
  templateAggregate,
  type TemplateEvent,
  type TemplateState,
} from '../../streams/prompts/template';

const variableName = z
  .string()
  .max(64)
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'a variable name: a letter, then letters, digits or _');

export const CreateTemplateBody = z
  .object({
    namespace_id: z.string().uuid(),
    slug: z
      .string()
      .max(64)
      .regex(TEMPLATE_SLUG, 'a lower-case slug: a letter, then letters, digits, _ or -, at most 64'),
    name: z.string().min(1).max(200).optional(),
    description: z.string().max(2000).default(''),
    budget_tier_id: z.string().uuid().nullable().default(null),
    /** Declared variables; versions using others get `unknown_variables`. Omitted: any. */
    variables: z.array(variableName).max(100).nullable().default(null),
  })
  .strict();

export type CreateTemplate = {
  type: 'CreateTemplate';
  templateId: string;
  namespaceId: string;
  namespaceName: string;
  slug: string;
  name: string;
  description: string;
  budgetTierId: string | null;
  variables: string[] | null;
  actorId: string;
};

export function decideCreateTemplate(command: CreateTemplate, state: TemplateState, now: Date): TemplateEvent[] {
  switch (command.type) {
    case 'CreateTemplate': {
      if (state.status !== 'none') throw new Conflict('Prompt template already exists');
      const { type: _type, actorId, ...fields } = command;
      return [{ type: 'PromptTemplateCreated', data: { ...fields, createdBy: actorId, createdAt: now.toISOString() } }];
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<CreateTemplate, TemplateState, TemplateEvent> = {
  ...templateAggregate,
  decide: decideCreateTemplate,
};

export const slugReservation = (tenantId: string, namespaceId: string, slug: string) => ({
  context: 'prompts',
  tenantId,
  kind: 'template-slug',
  value: `${namespaceId}:${slug}`,
  label: `prompt template slug "${slug}"`,
});

/** The slug is unique within its namespace: a reservation appended with the template's first event. */
export async function createTemplate(
  deps: Pick<PlatformDeps, 'handle' | 'knex' | 'cache' | 'logger'>,
  context: CommandContext,
  body: z.infer<typeof CreateTemplateBody>,
): Promise<string> {
  const namespace = await findNamespace(deps.knex, context.tenantId, body.namespace_id);
  if (!namespace) throw new NotFound('Prompt namespace not found');
  if (body.budget_tier_id) {
    const tier = await findTier(deps.knex, context.tenantId, body.budget_tier_id);
    if (!tier || tier.namespace_id !== namespace.id) throw new NotFound('Budget tier not found in this namespace');
  }
  const templateId = newId(context, 'prompts.template');
  const command: CreateTemplate = {
    type: 'CreateTemplate',
    templateId,
    namespaceId: namespace.id,
    namespaceName: namespace.name,
    slug: body.slug,
    name: body.name ?? body.slug,
    description: body.description,
    budgetTierId: body.budget_tier_id,
    variables: body.variables,
    actorId: context.actorId,
  };
  await deps.handle(decider, templateAggregate.stream(context.tenantId, templateId), command, context, {
    reserve: [slugReservation(context.tenantId, namespace.id, body.slug)],
  });
  // A resolve of this address may have cached "no such template".
  await promptResolveCache(deps).invalidate({ tenantId: context.tenantId, ref: `${namespace.name}:${body.slug}` });
  return templateId;
}
