import type { EntityTypeDefinition, RelationshipRuleDefinition, RelationshipTypeDefinition } from './schema';

/**
 * The shipped vertical: Texas oil-and-gas regulatory compliance. Installed
 * once as a `GraphVerticalInstalled` event; everything here can be changed at run time
 * through /entity-types, /relationship-types and /relationship-rules. A new version is installed
 * as its own event: what it adds appears, what an administrator changed is kept (docs/graph.md).
 * Version 2 lets a Lease have filings (an oil lease files its own Form PR).
 */
export const OILGAS_VERTICAL = 'oilgas';
export const OILGAS_VERTICAL_VERSION = 2;

const PRODUCTION_FIELDS = [
  'production_oil_bbls',
  'production_gas_mcf',
  'production_casinghead_mcf',
  'production_condensate_bbls',
  'production_water_bbls',
  'gas_sold_mcf',
  'gas_used_on_lease_mcf',
  'gas_flared_mcf',
  'gas_vented_mcf',
  'producing_days',
  'allocation_method',
  'form_pr_period',
  'production_history_12m',
];

type Row = [
  key: string,
  label: string,
  displayName: string,
  section: string,
  terminal: boolean,
  significant: string[],
  others: string[],
  description: string,
];

const ENTITY_ROWS: Row[] = [
  [
    'well',
    'Well',
    'Well',
    'well',
    false,
    [
      'api_number',
      'name',
      'well_name',
      'status',
      'well_type',
      'operator',
      'field',
      'lease',
      'production_oil_bbls',
      'production_gas_mcf',
      'gas_flared_mcf',
      'gas_vented_mcf',
      'form_pr_period',
    ],
    [
      'spud_date',
      'completion_date',
      'latitude',
      'longitude',
      'county',
      'district',
      'well_number',
      'lateral_length_ft',
      ...PRODUCTION_FIELDS,
    ],
    'An oil or gas well identified by its API number (42-CCC-UUUUU in Texas).',
  ],
  [
    'lease',
    'Lease',
    'Lease',
    'lease',
    false,
    ['name', 'lease_number', 'district', 'county'],
    ['oil_gas_code', 'acres'],
    'A lease (oil lease number within a district, or gas well id).',
  ],
  [
    'field',
    'Field',
    'Field',
    'field',
    true,
    ['name', 'field_number', 'district'],
    ['county', 'state'],
    'An RRC field, e.g. SPRABERRY (TREND AREA).',
  ],
  [
    'formation',
    'Formation',
    'Formation',
    'formations',
    true,
    ['name', 'type'],
    ['depth_range'],
    'A producing formation or horizon.',
  ],
  [
    'operator',
    'Operator',
    'Operator',
    'operator',
    true,
    ['name', 'p5_number', 'p5_status'],
    ['p5_renewal_month', 'contact_name', 'contact_email', 'contact_phone', 'address'],
    'An operator with its P-5 organization number.',
  ],
  [
    'permit',
    'Permit',
    'Permit',
    'permits',
    false,
    ['permit_number', 'status', 'type'],
    ['issued_date', 'expiration_date', 'form'],
    'A drilling (W-1) or other permit.',
  ],
  [
    'flaring_authorization',
    'FlaringAuthorization',
    'Flaring authorization',
    'flaring_authorizations',
    false,
    ['auth_number', 'authorized_mcf', 'expiry_date', 'status'],
    ['issued_date', 'form', 'hearing_required'],
    'A Rule 32 flaring/venting exception (Form R-32).',
  ],
  [
    'flaring_event',
    'FlaringEvent',
    'Flaring event',
    'flaring_authorizations',
    false,
    ['disposition_code', 'volume_mcf', 'date'],
    ['authority_remark', 'reason'],
    'Gas flared (code 10) or vented (code 11) on a day.',
  ],
  [
    'infrastructure_project',
    'InfrastructureProject',
    'Infrastructure project',
    'infrastructure',
    false,
    ['name', 'type', 'status'],
    ['in_service_date', 'capacity_mmcfd'],
    'A gathering or takeaway project.',
  ],
  [
    'regulation',
    'Regulation',
    'Regulation',
    'regulations',
    true,
    ['name', 'rule_number', 'source'],
    ['citation', 'summary'],
    'A rule of 16 TAC chapter 3.',
  ],
  [
    'wellpad',
    'Wellpad',
    'Well pad',
    'wellpad',
    false,
    ['name', 'wells_count'],
    ['latitude', 'longitude'],
    'A pad holding several wells.',
  ],
  [
    'facility',
    'Facility',
    'Facility',
    'facilities',
    false,
    ['name', 'type'],
    ['capacity', 'latitude', 'longitude'],
    'tank_battery, compressor, separator or cpf.',
  ],
  [
    'pipeline_route',
    'PipelineRoute',
    'Pipeline route',
    'pipeline_routes',
    false,
    ['name', 'diameter', 'capacity'],
    ['operator', 'commodity', 'length_miles'],
    'A gathering or transmission route.',
  ],
  [
    'well_event',
    'WellEvent',
    'Well event',
    'events',
    false,
    ['type', 'date'],
    ['description'],
    'Something that happened at a well.',
  ],
  [
    'compliance_deadline',
    'ComplianceDeadline',
    'Compliance deadline',
    'deadlines',
    false,
    ['deadline_date', 'type', 'status'],
    ['form', 'period'],
    'A filing or action due date.',
  ],
  [
    'filing_package',
    'FilingPackage',
    'Filing package',
    'filings',
    false,
    ['form', 'period', 'status'],
    ['submitted_at'],
    'A prepared regulatory filing.',
  ],
  [
    'well_conversation',
    'WellConversation',
    'Well conversation',
    'conversations',
    false,
    ['title'],
    ['conversation_id'],
    'A conversation about a well.',
  ],
  ['project', 'Project', 'Project', 'projects', false, ['name', 'status'], [], 'A project grouping work.'],
  [
    'equipment',
    'Equipment',
    'Equipment',
    'infrastructure',
    false,
    ['name', 'type'],
    ['serial_number'],
    'Equipment at a site.',
  ],
  [
    'pipeline',
    'Pipeline',
    'Pipeline',
    'infrastructure',
    false,
    ['name', 'diameter', 'capacity'],
    ['commodity'],
    'A pipeline asset.',
  ],
];

export const OILGAS_ENTITY_TYPES: EntityTypeDefinition[] = ENTITY_ROWS.map(
  ([key, label, displayName, section, terminal, significant, others, description]) => ({
    key,
    label,
    display_name: displayName,
    description,
    properties: ['entity_id', ...significant, ...others.filter((o) => !significant.includes(o))],
    significant_fields: significant,
    context_section: section,
    impact_terminal: terminal,
  }),
);

type EdgeRow = [
  key: string,
  from: string[],
  to: string[],
  infrastructure: boolean,
  section: string | null,
  description: string,
];

const EDGE_ROWS: EdgeRow[] = [
  ['LOCATED_IN', ['Well'], ['Field', 'Lease'], false, null, 'A well lies in a field and on a lease.'],
  ['LOCATED_ON', ['Well'], ['Wellpad'], true, null, 'A well is drilled from a pad.'],
  ['COMPLETED_IN', ['Well'], ['Formation'], false, null, 'A well produces from a formation.'],
  [
    'OPERATED_BY',
    ['Well', 'Lease', 'Wellpad', 'Facility', 'PipelineRoute'],
    ['Operator'],
    false,
    null,
    'The operator of record.',
  ],
  ['OFFSET_TO', ['Well'], ['Well'], false, 'offsets', 'A nearby well in the same horizon (Rule 37 spacing).'],
  ['GOVERNED_BY', ['Well', 'Permit'], ['Regulation'], false, null, 'A rule that applies.'],
  [
    'FLARES_AT',
    ['FlaringEvent', 'FlaringAuthorization'],
    ['Well', 'Lease'],
    false,
    null,
    'Where gas is flared, or which site an authorization covers.',
  ],
  [
    'AUTHORIZED_UNDER',
    ['FlaringEvent'],
    ['FlaringAuthorization'],
    false,
    null,
    'The authorization a flaring event relies on.',
  ],
  ['PRODUCES_TO', ['Well'], ['Facility'], true, null, 'Production flows from a well to a facility.'],
  ['FEEDS_INTO', ['Facility'], ['PipelineRoute'], true, null, 'A facility delivers into a pipeline route.'],
  [
    'CONNECTS_TO',
    ['InfrastructureProject', 'PipelineRoute'],
    ['Lease', 'InfrastructureProject'],
    true,
    null,
    'Takeaway connects to a lease or project.',
  ],
  ['HAS_EVENT', ['Well'], ['WellEvent'], false, null, 'An event at a well.'],
  ['HAS_DEADLINE', ['Well'], ['ComplianceDeadline'], false, null, 'A deadline for a well.'],
  [
    'HAS_FILING',
    ['Well', 'Lease'],
    ['FilingPackage'],
    false,
    null,
    'A filing for a well or a lease (the unit that reports it).',
  ],
  ['HAS_CONVERSATION', ['Well'], ['WellConversation'], false, null, 'A conversation about a well.'],
  ['PART_OF', ['*'], ['*'], true, null, 'Generic containment between any two vertices.'],
];

export const OILGAS_RELATIONSHIP_TYPES: RelationshipTypeDefinition[] = EDGE_ROWS.map(
  ([key, , , infrastructure, section, description]) => ({
    key,
    display_name: key.toLowerCase().replace(/_/g, ' '),
    description,
    context_section: section,
    infrastructure,
  }),
);

export const OILGAS_RELATIONSHIP_RULES: RelationshipRuleDefinition[] = EDGE_ROWS.flatMap(([key, from, to]) =>
  from.flatMap((f) =>
    to.map((t) => ({
      id: `${OILGAS_VERTICAL}-${key}-${f}-${t}`.toLowerCase().replace(/\*/g, 'any'),
      edge_label: key,
      from_label: f,
      to_label: t,
    })),
  ),
);

/**
 * Context sections each domain tag selects. `flaring`
 * "adds" its five sections to the core every list shares (well, lease, field, operator).
 */
const CORE = ['well', 'lease', 'field', 'operator'];
export const DOMAIN_TAG_SECTIONS: Record<string, string[] | 'all'> = {
  spacing: [...CORE, 'offsets', 'regulations'],
  rule_37: [...CORE, 'offsets', 'regulations'],
  flaring: [...CORE, 'flaring_authorizations', 'infrastructure', 'wellpad', 'facilities', 'pipeline_routes'],
  rule_32: [...CORE, 'flaring_authorizations', 'infrastructure', 'regulations'],
  compliance: [...CORE, 'offsets', 'flaring_authorizations', 'regulations', 'wellpad', 'facilities'],
  drilling: [...CORE, 'regulations'],
  production: [...CORE, 'wellpad', 'facilities'],
  impact: 'all',
};
