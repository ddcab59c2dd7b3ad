import { z } from 'zod';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, Forbidden, ValidationFailed } from '../../src/platform/domain-errors';
import { promptResolveCache } from './resolve-cache';
import { findVersion } from '../../queries/prompts/versions';
import { templateAggregate, type TemplateEvent, type TemplateState } from '../../streams/prompts/template';
import { ROLES } from '../../streams/identity/permissions';
import { liveTemplate, versionIn } from './template-guards';

export const PromotePreProductionBody = z
  .object({
    target_users: z.array(z.string().min(1).max(200)).max(1000).default([]),
    target_roles: z.array(z.enum(ROLES)).max(ROLES.length).default([]),
  })
  .strict();

/**
 * `plain`: refused while another version is in pre-production (409 with the conflict body).
 * `override`: the other version is retired and this one takes the slot with the targeting given.
 * `merge`: the same, but the audience is the union of the other version's targeting and the
 * one given, so testers of the displaced version move to this one.
 */
export type PromoteMode = 'plain' | 'override' | 'merge';

export type PromotePreProduction = {
  type: 'PromotePreProduction';
  versionId: string;
  actorId: string;
  targetUsers: string[];
  targetRoles: string[];
  mode: PromoteMode;
};

/** Another version holds pre-production; the route answers the spec's conflict body. */
export class PreProductionTaken extends Conflict {
  constructor(readonly existingVersionId: string) {
    super('Another version of this template is in pre-production');
  }
}

const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];

export function decidePromotePreProduction(
  command: PromotePreProduction,
  state: TemplateState,
  now: Date,
): TemplateEvent[] {
  switch (command.type) {
    case 'PromotePreProduction': {
      const template = liveTemplate(state);
      const version = versionIn(template, command.versionId);
      const current = template.preProduction;
      const retargeting = current?.versionId === command.versionId;
      if (version.status !== 'draft' && !retargeting)
        throw new Conflict(`Only a draft can be promoted to pre-production; this version is ${version.status}`);
      if (version.authorId !== command.actorId) throw new Forbidden('Only the author may promote their draft');
      if (!version.valid)
        throw new ValidationFailed([
          {
            loc: ['path', 'id'],
            msg: 'the version failed validation (see its validation_result); fix it before promoting',
            type: 'invalid_version',
          },
        ]);
      const other = current && !retargeting ? current : null;
      if (other && command.mode === 'plain') throw new PreProductionTaken(other.versionId);
      const merged = other && command.mode === 'merge';
      return [
        {
          type: 'PromptPromotedToPreProduction',
          data: {
            templateId: template.templateId,
            versionId: command.versionId,
            targetUsers: merged ? union(other.targetUsers, command.targetUsers) : command.targetUsers,
            targetRoles: merged ? union(other.targetRoles, command.targetRoles) : command.targetRoles,
            resolution: other ? (command.mode as 'override' | 'merge') : 'none',
            displacedVersionId: other?.versionId ?? null,
            promotedBy: command.actorId,
            promotedAt: now.toISOString(),
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<PromotePreProduction, TemplateState, TemplateEvent> = {
  ...templateAggregate,
  decide: decidePromotePreProduction,
};

export async function promotePreProduction(
  deps: Pick<PlatformDeps, 'handle' | 'knex' | 'cache' | 'logger'>,
  context: CommandContext,
  templateId: string,
  versionId: string,
  input: z.infer<typeof PromotePreProductionBody>,
  mode: PromoteMode,
): Promise<void> {
  const command: PromotePreProduction = {
    type: 'PromotePreProduction',
    versionId,
    actorId: context.actorId,
    targetUsers: input.target_users,
    targetRoles: input.target_roles,
    mode,
  };
  try {
    await deps.handle(decider, templateAggregate.stream(context.tenantId, templateId), command, context);
  } catch (error) {
    if (!(error instanceof PreProductionTaken)) throw error;
    // The decision was made on the write side; the read model only dresses the answer.
    const existing = await findVersion(deps.knex, context.tenantId, error.existingVersionId);
    throw new Conflict(error.message, {
      conflict: true,
      existing_pre_prod: existing
        ? {
            version_id: existing.id,
            version_number: existing.version_number,
            author_id: existing.author_id,
            body: existing.body,
            created_at: existing.created_at,
          }
        : { version_id: error.existingVersionId, version_number: null, author_id: null, body: null, created_at: null },
      options: ['override', 'merge'],
    });
  }
  await promptResolveCache(deps).invalidate({ tenantId: context.tenantId, templateId });
}
