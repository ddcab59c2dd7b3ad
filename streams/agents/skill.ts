import { z } from 'zod';
import type { Aggregate, EventsOf } from '../../src/platform/command-handling/aggregate';
import { eventReader } from '../../src/platform/command-handling/aggregate';

/**
 * A skill: instructions an agent loads mid-turn with the `load_skill` tool when the user's
 * words call for it. Skills are per tenant and editable by holders of `skills.author`; a
 * tenant skill with the key of a built-in one replaces it, and retiring it hides the
 * built-in one too.
 */
export const SKILL_KEY = z
  .string()
  .max(64)
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,63}$/,
    'must be 1 to 64 characters of a-z, 0-9, "_" or "-", starting with a letter or digit',
  );

export const SkillEventSchemas = {
  SkillDefined: z.object({
    key: z.string(),
    name: z.string(),
    description: z.string(),
    triggerWords: z.array(z.string()),
    instructions: z.string(),
    version: z.number().int().min(1),
    definedBy: z.string(),
    definedAt: z.string(),
  }),
  SkillRetired: z.object({ key: z.string(), retiredBy: z.string(), retiredAt: z.string() }),
};

export type SkillEvent = EventsOf<typeof SkillEventSchemas>;
export const readSkillEvent = eventReader('skill', SkillEventSchemas);

export type SkillState =
  { status: 'none' } | { status: 'active'; version: number } | { status: 'retired'; version: number };

export function evolveSkill(state: SkillState, event: SkillEvent): SkillState {
  switch (event.type) {
    case 'SkillDefined':
      return { status: 'active', version: event.data.version };
    case 'SkillRetired':
      return { status: 'retired', version: state.status === 'none' ? 0 : state.version };
  }
}

export const skillAggregate: Aggregate<SkillState, SkillEvent> = {
  stream: (tenantId, key) => `agents.skill-${tenantId}-${key}`,
  eventTypes: Object.keys(SkillEventSchemas) as SkillEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveSkill,
  read: readSkillEvent,
};
