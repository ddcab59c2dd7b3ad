/**
 * The shipped filing templates (Texas RRC forms, 16 TAC chapter 3; the rules in docs/compliance.md).
 * An item is a `data_table` (figures pulled from the knowledge graph) or an `analysis` (an
 * assessment with validations). `key` names what the assessment computes for the item.
 */
export const ITEM_TYPES = ['data_table', 'analysis'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

export interface TemplateItem {
  key: string;
  label: string;
  itemType: ItemType;
  description: string;
}

export interface FilingTemplate {
  templateId: string;
  form: string;
  title: string;
  domain: string;
  /**
   * Graph labels of the entities a checklist of this template may be about, as the graph names
   * them (a request's `entity_type` matches case-insensitively). Form PR: an oil lease, or a
   * well (an oil well's report is its lease's; a gas well reports on its own).
   */
  entityTypes: readonly string[];
  description: string;
  items: TemplateItem[];
}

const item = (key: string, itemType: ItemType, label: string, description: string): TemplateItem => ({
  key,
  label,
  itemType,
  description,
});

export const FILING_TEMPLATES: readonly FilingTemplate[] = [
  {
    templateId: 'form_pr',
    form: 'PR',
    title: 'Form PR monthly production report',
    domain: 'production',
    entityTypes: ['Well', 'Lease'],
    description:
      'Monthly production report per oil lease (all its wells, allocated) or per gas well; due on the last working day of the month after the production month (Texas state holidays are not working days).',
    items: [
      item(
        'well_identification',
        'data_table',
        'Operator, lease and well identification',
        'API number, operator P-5 number, district, field, lease name and number, well number.',
      ),
      item(
        'oil_production',
        'data_table',
        'Oil / condensate production (bbl)',
        'Beginning stock, produced and disposed barrels for the month, whole numbers.',
      ),
      item(
        'gas_production',
        'data_table',
        'Casinghead / gas-well gas production (mcf)',
        'Casinghead gas for oil wells, gas-well gas for gas wells, in whole mcf.',
      ),
      item(
        'gas_disposition',
        'data_table',
        'Gas disposition by code',
        'Codes 01 lease fuel, 02 transmission line, 03 processing plant, 05 gas lift, 06 repressure, 07 carbon black, 08 storage, 09 shrinkage, 10 flared, 11 vented; the codes sum to the gas produced.',
      ),
      item(
        'flaring_authority',
        'analysis',
        'Flared and vented volumes (codes 10/11) authorized',
        'Volumes under codes 10/11 carry an authority remark (AR, AE, EP or EX) and stay within the Rule 32 authorization.',
      ),
      item(
        'filing_deadline',
        'analysis',
        'Filing deadline',
        'Due on the last working day of the month following the production month.',
      ),
    ],
  },
  {
    templateId: 'r_32',
    form: 'R-32',
    title: 'R-32 application for a flaring/venting exception',
    domain: 'rule_32',
    entityTypes: ['Well'],
    description: 'Rule 32 exception to flare or vent beyond the drilling and 10-day post-completion allowance.',
    items: [
      item(
        'flaring_site',
        'data_table',
        'Site: lease, well, field, district and location',
        'Where gas will be released: lease and well identification, field, district, latitude and longitude.',
      ),
      item(
        'flaring_history',
        'data_table',
        'Flared and vented volumes (codes 10/11) to date',
        'Monthly flared (10) and vented (11) volumes and the daily rate.',
      ),
      item(
        'existing_authorizations',
        'data_table',
        'Existing Rule 32 authorizations',
        'Authorization numbers, authorized mcf/d and expiry dates covering the site.',
      ),
      item(
        'volume_and_duration',
        'analysis',
        'Requested volume and duration',
        'Administrative approval up to 180 days (more documentation past 45 days); longer needs a hearing; volumes of 50 mcf/d or less may be approved without an end date.',
      ),
      item(
        'reason_and_alternatives',
        'analysis',
        'Reason for release and alternatives considered',
        'No pipeline connection, pipeline capacity or testing; distance to the nearest gathering line and why connecting is not yet feasible.',
      ),
    ],
  },
  {
    templateId: 'w_1',
    form: 'W-1',
    title: 'W-1 application for a permit to drill',
    domain: 'drilling',
    entityTypes: ['Well'],
    description: 'Drilling permit; needs a current P-5; the permit expires 2 years after issuance.',
    items: [
      item(
        'operator_p5',
        'data_table',
        'Operator P-5 organization report current',
        "The operator's P-5 number and status; a permit needs an active P-5.",
      ),
      item(
        'location_and_plat',
        'data_table',
        'Surface location and plat',
        'Location plat with survey, abstract, lease lines, latitude and longitude.',
      ),
      item(
        'spacing_rule_37',
        'analysis',
        'Rule 37 spacing',
        'At least 467 ft from any lease line and 1,200 ft from wells in the same horizon on the tract; closer needs a Rule 37 exception.',
      ),
      item(
        'density_w_1a',
        'analysis',
        'Rule 38 density (W-1A if substandard acreage)',
        "Acreage against the field's density rule; substandard acreage needs Form W-1A.",
      ),
      item(
        'pooling_p_12',
        'analysis',
        'P-12 certificate of pooling authority',
        'Needed when the drilling unit pools separately owned tracts.',
      ),
      item(
        'sour_gas_h_9',
        'analysis',
        'H-9 certificate of compliance (sour gas)',
        'Needed where hydrogen sulfide is expected (Rule 36).',
      ),
      item(
        'permit_status',
        'data_table',
        'Existing permits for the well',
        'Permit numbers, issue and expiration dates (2 years after issuance).',
      ),
    ],
  },
  {
    templateId: 'w_2_g_1',
    form: 'W-2/G-1',
    title: 'W-2 (oil) / G-1 (gas) well completion report',
    domain: 'drilling',
    entityTypes: ['Well'],
    description:
      'Completion report; due within 90 days of completion or 150 days after drilling ends, whichever is earlier.',
    items: [
      item(
        'well_record',
        'data_table',
        'Well record and completion type',
        'API number, spud and completion dates; oil wells file W-2, gas wells G-1.',
      ),
      item(
        'completion_deadline',
        'analysis',
        'Completion report deadline',
        'Within 90 days of completion or 150 days after drilling ends, whichever is earlier.',
      ),
      item(
        'initial_potential',
        'data_table',
        'Initial potential test',
        'Oil (bbl/d), gas (mcf/d) and water (bbl/d) on the potential test.',
      ),
      item(
        'producing_interval',
        'data_table',
        'Producing formation and interval',
        'Formation completed in, perforated interval, lateral length.',
      ),
      item(
        'casing_and_cementing',
        'analysis',
        'Casing and cementing record (W-15)',
        'Casing strings and cementing certified on Form W-15.',
      ),
      item(
        'attachments_logs',
        'analysis',
        'Logs and surveys attached',
        'Directional survey for deviated or horizontal wells, L-1 log, P-4 producer certificate.',
      ),
    ],
  },
  {
    templateId: 'w_3x',
    form: 'W-3X',
    title: 'W-3X application for a plugging extension',
    domain: 'inactive_wells',
    entityTypes: ['Well'],
    description:
      'Rule 15: an inactive well (12 months without production) must be plugged unless a plugging extension is granted.',
    items: [
      item(
        'inactive_status',
        'data_table',
        'Inactive well status and production history',
        'Months since the last reported production; inactive after 12 consecutive months without production.',
      ),
      item(
        'h_15_test',
        'analysis',
        'H-15 fluid level test (wells over 25 years)',
        'Inactive wells over 25 years old need an annual H-15 test.',
      ),
      item(
        'extension_basis',
        'analysis',
        'Basis for the extension and P-5 standing',
        'Plugging extension option (e.g. 10% plugging, escrow, bond) and a P-5 renewal not blocked by Rule 15.',
      ),
      item(
        'return_to_active',
        'analysis',
        'Return to active criteria',
        'Three months each of at least 5 bbl oil or 50 mcf gas return a well to active status.',
      ),
    ],
  },
];

export function findTemplate(templateId: string): FilingTemplate | undefined {
  return FILING_TEMPLATES.find((t) => t.templateId === templateId);
}

/** The graph label a request's `entity_type` names for this template (`well`, `WELL` → `Well`), or null. */
export function entityLabelOf(template: FilingTemplate, requested: string): string | null {
  return template.entityTypes.find((t) => t.toLowerCase() === requested.trim().toLowerCase()) ?? null;
}

const article = (label: string) => (/^[AEIOU]/i.test(label) ? 'an' : 'a');

export const entityTypeMismatch = (template: FilingTemplate, requested: string) =>
  `template ${template.templateId} is about ${template.entityTypes.map((t) => `${article(t)} ${t}`).join(' or ')}, not ${requested}`;

/** Why a template cannot be about this graph entity (null: it can). */
export function entityMismatch(
  template: FilingTemplate,
  label: string,
  entityId: string,
  entity: { entity_id: string; properties: Record<string, string> } | null,
): string | null {
  if (!entity) return `no ${label} ${entityId} in the knowledge graph`;
  if (
    template.templateId === 'form_pr' &&
    label === 'Lease' &&
    (entity.properties.oil_gas_code ?? entity.entity_id[0]) === 'G'
  ) {
    return `Form PR of gas lease ${entity.entity_id} is filed per gas well: create the checklist for one of its wells`;
  }
  return null;
}
