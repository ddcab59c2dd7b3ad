import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { derivedUuid } from '../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../src/platform/context-module';
import { listEventTypes } from '../../queries/monitoring/event-types';
import { changeGuardRules, type GuardRuleBody } from './change-guard-rules';
import { createEventType, CreateEventTypeBody } from './create-event-type';

/**
 * The operational event types operators log out of the box (shipped with the sample seed):
 * flare upset, H2S release, spill and equipment failure, each with its fields and one
 * published guard rule, active at once so field staff and `field_event` agents can log
 * against them. A type whose name the tenant already uses is left as it is.
 */
type SeedType = {
  body: Omit<CreateEventTypeBody, 'fields' | 'status'> & { fields: Array<Record<string, unknown>> };
  guard: GuardRuleBody;
};

const description = { name: 'description', type: 'text', required: false, label: 'What happened' };

export const SEED_EVENT_TYPES: SeedType[] = [
  {
    body: {
      name: 'Flare upset',
      description:
        'Unplanned flaring (compressor or plant outage, pipeline curtailment): volumes count against the Rule 32 authorization.',
      category: 'emissions',
      compliance_domain: 'rule_32',
      anomaly_kind: 'flare_upset',
      fields: [
        { name: 'volume_mcf', type: 'number', required: true, label: 'Gas flared (mcf)' },
        { name: 'duration_hours', type: 'number', required: true, label: 'Duration (hours)' },
        {
          name: 'cause',
          type: 'select',
          required: false,
          options: ['compressor outage', 'pipeline curtailment', 'plant upset', 'emergency shutdown', 'other'],
          label: 'Cause',
        },
        description,
      ],
    },
    guard: {
      name: 'Flared volume is positive',
      field: 'volume_mcf',
      operator: 'gt',
      value: 0,
      message: 'a flare upset flares a positive volume (mcf)',
      enabled: true,
    },
  },
  {
    body: {
      name: 'H2S release',
      description:
        'Release of hydrogen sulfide (sour gas, Rule 36): concentration and duration, whether the area was evacuated.',
      category: 'safety',
      fields: [
        { name: 'concentration_ppm', type: 'number', required: true, label: 'H2S concentration (ppm)' },
        { name: 'duration_hours', type: 'number', required: false, label: 'Duration (hours)' },
        { name: 'evacuated', type: 'boolean', required: false, label: 'Area evacuated' },
        description,
      ],
    },
    guard: {
      name: 'Concentration is positive',
      field: 'concentration_ppm',
      operator: 'gt',
      value: 0,
      message: 'an H2S release has a positive concentration (ppm)',
      enabled: true,
    },
  },
  {
    body: {
      name: 'Spill',
      description: 'Loss of crude oil, condensate or produced water (Rule 20 notification; Rule 91 cleanup).',
      category: 'environment',
      fields: [
        { name: 'volume_bbl', type: 'number', required: true, label: 'Volume spilled (bbl)' },
        {
          name: 'substance',
          type: 'select',
          required: true,
          options: ['crude oil', 'condensate', 'produced water', 'other'],
          label: 'Substance',
        },
        { name: 'contained', type: 'boolean', required: false, label: 'Contained on site' },
        description,
      ],
    },
    guard: {
      name: 'Spilled volume is positive',
      field: 'volume_bbl',
      operator: 'gt',
      value: 0,
      message: 'a spill has a positive volume (bbl)',
      enabled: true,
    },
  },
  {
    body: {
      name: 'Equipment failure',
      description: 'Failure of production equipment (compressor, pump, separator…), with the shut-in it caused.',
      category: 'operations',
      fields: [
        {
          name: 'equipment',
          type: 'select',
          required: true,
          options: [
            'compressor',
            'pump',
            'separator',
            'heater treater',
            'tank',
            'valve',
            'pipeline',
            'flare stack',
            'other',
          ],
          label: 'Equipment',
        },
        { name: 'shut_in', type: 'boolean', required: false, label: 'Well shut in' },
        { name: 'duration_hours', type: 'number', required: false, label: 'Downtime (hours)' },
        description,
      ],
    },
    guard: {
      name: 'Downtime is not negative',
      field: 'duration_hours',
      operator: 'gte',
      value: 0,
      message: 'downtime cannot be negative',
      enabled: true,
    },
  },
];

export async function seedEventTypes(deps: PlatformDeps, context: CommandContext): Promise<string[]> {
  const existing = new Set((await listEventTypes(deps.knex, context.tenantId, {})).map((t) => t.name.toLowerCase()));
  const created: string[] = [];
  for (const { body: seed, guard } of SEED_EVENT_TYPES) {
    if (existing.has(seed.name.toLowerCase())) continue;
    const eventTypeId = derivedUuid('monitoring.seed-event-type', context.tenantId, seed.name);
    const body = CreateEventTypeBody.parse({ ...seed, status: 'active' });
    await createEventType(deps, context, {
      type: 'CreateEventType',
      eventTypeId,
      body,
      fieldIds: body.fields.map((f) => derivedUuid('monitoring.seed-field', eventTypeId, f.name)),
      actorId: context.actorId,
    });
    const ruleId = derivedUuid('monitoring.seed-guard', eventTypeId, guard.name);
    await changeGuardRules(deps, context, eventTypeId, {
      type: 'AddGuardRule',
      ruleId,
      body: guard,
      actorId: context.actorId,
    });
    await changeGuardRules(deps, context, eventTypeId, { type: 'PublishGuardRule', ruleId, actorId: context.actorId });
    created.push(seed.name);
  }
  return created;
}
