import { expect } from 'chai';
import { formPrDue } from '../../../commands/compliance/packs/production';
import { seedGraph } from '../../../commands/graph/seed-graph';
import { NotFound } from '../../../src/platform/domain-errors';
import {
  DOMAIN_TAG_SECTIONS,
  OILGAS_ENTITY_TYPES,
  OILGAS_RELATIONSHIP_TYPES,
} from '../../../streams/graph/oilgas-vertical';
import { generatePortfolio } from '../../../commands/graph/seed/texas-portfolio';
import { countTokens } from '../../../src/platform/infra/tokens';
import { contextText } from '../../../queries/graph/context-text';
import type { Related, Walk } from '../../../queries/graph/context-walk';
import { economicImpact } from '../../../queries/graph/economics';
import { sectionsFor } from '../../../queries/graph/managed-context';

const entityTypes = new Map(OILGAS_ENTITY_TYPES.map((e) => [e.label, e]));
const relationshipTypes = new Map(OILGAS_RELATIONSHIP_TYPES.map((r) => [r.key, r]));
const root = {
  id: 'r',
  label: 'Well',
  entity_id: '42-329-30001',
  properties: { entity_id: '42-329-30001', api_number: '42-329-30001', status: 'producing', spud_date: '2020-01-01' },
};
const hop = (i: number, edge: string, label: string, props: Record<string, string> = {}): Related => ({
  edge_id: `e${i}`,
  edge_label: edge,
  direction: 'out',
  edge_properties: {},
  via: 'r',
  depth: 1,
  vertex: {
    id: `v${i}`,
    label,
    entity_id: `${label}-${i}`,
    properties: { entity_id: `${label}-${i}`, name: `${label} ${i}`, ...props },
  },
});
const walk = (relationships: Record<string, Related[]>): Walk => ({
  root,
  relationships,
  totals: Object.fromEntries(Object.entries(relationships).map(([k, v]) => [k, v.length])),
});
const options = { sections: 'all' as const, maxPerRelationship: 25, maxTokens: 8000, entityTypes, relationshipTypes };

describe('context text, sections and economics', () => {
  it("domain tags select exactly the spec's sections", () => {
    expect([...(sectionsFor(['spacing']) as Set<string>)].sort()).to.deep.equal([
      'field',
      'lease',
      'offsets',
      'operator',
      'regulations',
      'well',
    ]);
    expect([...(sectionsFor(['rule_32']) as Set<string>)].sort()).to.deep.equal([
      'field',
      'flaring_authorizations',
      'infrastructure',
      'lease',
      'operator',
      'regulations',
      'well',
    ]);
    expect([...(sectionsFor(['production']) as Set<string>)].sort()).to.deep.equal([
      'facilities',
      'field',
      'lease',
      'operator',
      'well',
      'wellpad',
    ]);
    expect(sectionsFor(['drilling', 'impact'])).to.equal('all');
    expect(sectionsFor([])).to.equal('all');
    expect(DOMAIN_TAG_SECTIONS.rule_37).to.deep.equal(DOMAIN_TAG_SECTIONS.spacing);
  });

  it('separates key fields from plain ones and marks overflow per relationship', () => {
    const offsets = Array.from({ length: 30 }, (_, i) =>
      hop(i, 'OFFSET_TO', 'Well', { api_number: `42-329-3${String(i).padStart(4, '0')}` }),
    );
    const text = contextText(walk({ OFFSET_TO: offsets }), { ...options, maxPerRelationship: 10 });
    expect(text.text).to.contain('Key fields: api_number: 42-329-30001; status: producing');
    expect(text.text).to.contain('Other fields: spud_date: 2020-01-01');
    expect(text.text).to.contain('## OFFSET_TO → Well (30, showing 10)');
    expect(text.text).to.contain('- … 20 more OFFSET_TO relationships not shown (limit 10 per relationship)');
    expect(text.relationships_truncated).to.deep.equal({ OFFSET_TO: { total: 30, included: 10 } });
    expect(text.entities_referenced).to.have.length(11);
    expect(text.fields_highlighted).to.deep.equal(['api_number', 'status']);
  });

  it('never exceeds the 8K-token backstop, whatever max_tokens asks', () => {
    const long = 'lorem ipsum dolor sit amet '.repeat(8);
    const many = Object.fromEntries(
      ['LOCATED_IN', 'OPERATED_BY', 'PART_OF', 'HAS_EVENT'].map((edge, k) => [
        edge,
        Array.from({ length: 1000 }, (_, i) => hop(k * 1000 + i, edge, 'WellEvent', { type: long, date: long })),
      ]),
    );
    const text = contextText(walk(many), { ...options, maxPerRelationship: 1000, maxTokens: 1_000_000 });
    expect(text.token_estimate).to.be.at.most(8000);
    expect(countTokens(text.text)).to.equal(text.token_estimate);
    expect(text.truncation_occurred).to.equal(true);
    expect(text.text).to.match(/context truncated at the 8000-token limit/);
  });

  it('flags detection results when an included vertex carries them', () => {
    const flagged = contextText(
      walk({
        HAS_DEADLINE: [
          hop(1, 'HAS_DEADLINE', 'ComplianceDeadline', { detection_results: '[{"rule":"PR","color":"red"}]' }),
        ],
      }),
      options,
    );
    expect(flagged.detection_results_included).to.equal(true);
    expect(contextText(walk({}), options).detection_results_included).to.equal(false);
  });

  it('prices oil at WTI and gas at Henry Hub with 1.037 MMBtu per mcf', () => {
    const e = economicImpact(
      [{ id: 'a', entity_id: 'a', properties: { production_oil_bbls: '1000', production_gas_mcf: '2000' } }],
      { wti_price: 70, henry_hub_price: 3 },
    );
    expect(e.total_value_usd_per_month).to.equal(70000 + 2000 * 1.037 * 3);
    expect(e.total_value_usd_per_year).to.equal(Math.round((70000 + 6222) * 12 * 100) / 100);
  });

  it('the portfolio generator is deterministic for a seed and sized by wells', () => {
    const a = generatePortfolio({ wells: 30, seed: 7, formPrDue });
    const b = generatePortfolio({ wells: 30, seed: 7, formPrDue });
    expect(a.vertices.filter((v) => v.label === 'Well')).to.have.length(30);
    expect(a.vertices.map((v) => v.entity_id)).to.deep.equal(b.vertices.map((v) => v.entity_id));
    expect(new Set(a.vertices.filter((v) => v.label === 'Well').map((v) => v.entity_id)).size).to.equal(30);
  });

  it('seeding is refused in production with a 404', async () => {
    let thrown: unknown;
    try {
      await seedGraph(
        { config: { production: true } } as any,
        { tenantId: 't', userId: 'u' },
        { wells: 1, seed: 1, as_of: '2026-01' },
        { formPrDue },
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(NotFound);
  });
});
