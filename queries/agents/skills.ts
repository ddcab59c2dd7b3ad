import type { Knex } from 'knex';
import { AGENT_TABLES } from '../../projections/agents/agents-read-model';
import { BUILTIN_SKILLS, type SkillDefinition } from '../../streams/agents/builtin-skills';

/** The tenant's skills: built-in ones overridden or hidden by the tenant's own, by key. */
export async function effectiveSkills(knex: Knex, tenantId: string): Promise<SkillDefinition[]> {
  const rows = await knex(AGENT_TABLES.skills)
    .where({ tenant_id: tenantId })
    .select('key', 'name', 'description', 'trigger_words', 'instructions', 'version', 'retired');
  const byKey = new Map<string, SkillDefinition>(BUILTIN_SKILLS.map((s) => [s.key, s]));
  for (const row of rows) {
    if (row.retired) byKey.delete(row.key);
    else
      byKey.set(row.key, {
        key: row.key,
        name: row.name,
        description: row.description,
        triggerWords: row.trigger_words,
        instructions: row.instructions,
        version: row.version,
        builtIn: false,
      });
  }
  return [...byKey.values()].sort((a, b) => a.key.localeCompare(b.key));
}

export const skillView = (s: SkillDefinition) => ({
  key: s.key,
  name: s.name,
  description: s.description,
  trigger_words: s.triggerWords,
  instructions: s.instructions,
  version: s.version,
  built_in: s.builtIn,
});
