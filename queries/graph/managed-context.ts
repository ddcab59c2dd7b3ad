import type { Knex } from 'knex';
import { NotFound, ValidationFailed } from '../../src/platform/domain-errors';
import { DOMAIN_TAG_SECTIONS } from '../../streams/graph/oilgas-vertical';
import { contextText } from './context-text';
import { walkFrom } from './context-walk';
import { findVertex } from './entities';
import { entityTypeIn, type SchemaSettings } from './graph-schema';

export interface ManagedContextQuery {
  entity_type_key: string;
  domain_tags: string[];
  depth: number;
  max_per_relationship: number;
  max_tokens: number;
}

/** Sections for the tags (union); no tag, or `impact`, selects every section. */
export function sectionsFor(tags: string[]): Set<string> | 'all' {
  if (tags.length === 0) return 'all';
  const sections = new Set<string>();
  for (const tag of tags) {
    const selected = DOMAIN_TAG_SECTIONS[tag];
    if (selected === 'all') return 'all';
    for (const s of selected) sections.add(s);
  }
  return sections;
}

export function checkDomainTags(tags: string[]): void {
  const unknown = tags.filter((t) => !Object.prototype.hasOwnProperty.call(DOMAIN_TAG_SECTIONS, t));
  if (unknown.length > 0) {
    throw new ValidationFailed([
      {
        loc: ['query', 'domain_tags'],
        msg: `unknown domain tag(s) ${unknown.join(', ')}; known: ${Object.keys(DOMAIN_TAG_SECTIONS).join(', ')}`,
        type: 'value_error.domain_tag',
      },
    ]);
  }
}

/**
 * GET /graph/context/managed/{id}: `structured` is the whole walk (every section, up to
 * 1000 per relationship); `context_text` is the reduced, section-selected text for a model.
 */
export async function managedContext(
  knex: Knex,
  settings: SchemaSettings,
  namespace: string,
  id: string,
  query: ManagedContextQuery,
) {
  checkDomainTags(query.domain_tags);
  const type = entityTypeIn(settings, query.entity_type_key);
  if (!type)
    throw new ValidationFailed([
      {
        loc: ['query', 'entity_type_key'],
        msg: `unknown entity type '${query.entity_type_key}'`,
        type: 'value_error.entity_type',
      },
    ]);
  const root = await findVertex(knex, namespace, type.label, id);
  if (!root) throw new NotFound(`${type.label} '${id}' not found`);
  const walk = await walkFrom(knex, namespace, root, query.depth);
  const sections = sectionsFor(query.domain_tags);
  const text = contextText(walk, {
    sections,
    maxPerRelationship: query.max_per_relationship,
    maxTokens: query.max_tokens,
    entityTypes: settings.entityTypes,
    relationshipTypes: settings.relationshipTypes,
  });
  const relationships = Object.fromEntries(
    Object.entries(walk.relationships).map(([label, hops]) => [
      label,
      hops.map((h) => ({
        ...h.vertex,
        direction: h.direction,
        depth: h.depth,
        via: h.via,
        edge_id: h.edge_id,
        edge_properties: h.edge_properties,
      })),
    ]),
  );
  return {
    entity_id: root.entity_id,
    vertex_id: root.id,
    entity_type: { key: type.key, label: type.label, display_name: type.display_name },
    domain_tags: query.domain_tags,
    sections: sections === 'all' ? 'all' : [...sections].sort(),
    structured: {
      entity: root,
      depth: query.depth,
      relationships,
      relationship_counts: Object.fromEntries(
        Object.entries(walk.totals).map(([label, total]) => [
          label,
          { total, included: walk.relationships[label]?.length ?? 0 },
        ]),
      ),
    },
    context_text: text.text,
    fields_highlighted: text.fields_highlighted,
    detection_results_included: text.detection_results_included,
    token_estimate: text.token_estimate,
    entities_referenced: text.entities_referenced,
    truncation_occurred: text.truncation_occurred,
    relationships_truncated: text.relationships_truncated,
  };
}
