import { countTokens, truncateToTokens } from '../../src/platform/infra/tokens';
import type { EntityTypeDefinition, RelationshipTypeDefinition } from '../../streams/graph/schema';
import type { VertexView } from './entities';
import type { Related, Walk } from './context-walk';

/** Above this every context is cut, whatever the caller asks. */
export const HARD_TOKEN_BACKSTOP = 8000;
const VALUE_CHARS = 240;
const FALLBACK_FIELDS = 6;

export interface TextOptions {
  sections: Set<string> | 'all';
  maxPerRelationship: number;
  maxTokens: number;
  entityTypes: Map<string, EntityTypeDefinition>;
  relationshipTypes: Map<string, RelationshipTypeDefinition>;
}

export interface ContextText {
  text: string;
  token_estimate: number;
  fields_highlighted: string[];
  detection_results_included: boolean;
  entities_referenced: Array<{ id: string; label: string; entity_id: string }>;
  truncation_occurred: boolean;
  relationships_truncated: Record<string, { total: number; included: number }>;
  sections_included: string[];
}

/** Detection results (compliance findings written onto a vertex) always count as significant. */
const DETECTION_FIELDS = ['detection_results', 'compliance_status', 'violations'];

const clip = (value: string) =>
  value.length > VALUE_CHARS ? `${value.slice(0, VALUE_CHARS)}… (${value.length} chars)` : value;
const render = (props: Record<string, string>, names: string[]) =>
  names.map((n) => `${n}: ${clip(props[n])}`).join('; ');

export function significantOf(vertex: VertexView, entityTypes: Map<string, EntityTypeDefinition>): string[] {
  const configured = entityTypes.get(vertex.label)?.significant_fields ?? [];
  const present = [...configured, ...DETECTION_FIELDS].filter(
    (f, i, all) => vertex.properties[f] !== undefined && all.indexOf(f) === i,
  );
  if (present.length > 0) return present;
  return Object.keys(vertex.properties)
    .filter((f) => f !== 'entity_id')
    .slice(0, FALLBACK_FIELDS);
}

const nameOf = (v: VertexView) => v.properties.name ?? v.properties.well_name ?? v.properties.api_number ?? v.entity_id;

export function sectionOf(hop: Related, options: Pick<TextOptions, 'entityTypes' | 'relationshipTypes'>): string {
  return (
    options.relationshipTypes.get(hop.edge_label)?.context_section ??
    options.entityTypes.get(hop.vertex.label)?.context_section ??
    'other'
  );
}

/**
 * The model-facing text: the entity with key fields apart from plain ones, then each
 * selected relationship with at most `maxPerRelationship` neighbors and an explicit marker
 * for what was left out, all under a token budget measured with the real tokenizer.
 */
export function contextText(walk: Walk, options: TextOptions): ContextText {
  const budget = Math.min(options.maxTokens, HARD_TOKEN_BACKSTOP);
  const lines: string[] = [];
  let used = 0;
  let cut = false;
  const referenced = new Map<string, { id: string; label: string; entity_id: string }>();
  const truncated: Record<string, { total: number; included: number }> = {};
  let detection = false;
  const sections = new Set<string>();
  // Room kept for the closing marker so the text never ends mid-thought.
  const reserve = 40;
  const push = (line: string): boolean => {
    if (cut) return false;
    const cost = countTokens(line) + 1;
    if (used + cost > budget - reserve) {
      cut = true;
      return false;
    }
    lines.push(line);
    used += cost;
    return true;
  };
  const mark = (v: VertexView) => {
    referenced.set(v.id, { id: v.id, label: v.label, entity_id: v.entity_id });
    if (DETECTION_FIELDS.some((f) => v.properties[f] !== undefined)) detection = true;
  };

  const { root } = walk;
  const significant = significantOf(root, options.entityTypes);
  const plain = Object.keys(root.properties)
    .filter((f) => !significant.includes(f) && f !== 'entity_id')
    .sort();
  push(`# ${root.label} ${nameOf(root)} (entity_id ${root.entity_id})`);
  mark(root);
  if (significant.length) push(`Key fields: ${render(root.properties, significant)}`);
  if (plain.length) push(`Other fields: ${render(root.properties, plain)}`);
  sections.add(options.entityTypes.get(root.label)?.context_section ?? 'entity');

  const groups = Object.entries(walk.relationships).sort(([a], [b]) => a.localeCompare(b));
  for (const [edgeLabel, hops] of groups) {
    const selected = hops.filter((h) => options.sections === 'all' || options.sections.has(sectionOf(h, options)));
    if (selected.length === 0) continue;
    const total = options.sections === 'all' ? (walk.totals[edgeLabel] ?? hops.length) : selected.length;
    const shown = selected.slice(0, options.maxPerRelationship);
    for (const h of shown) sections.add(sectionOf(h, options));
    const labels = [...new Set(selected.map((h) => h.vertex.label))].join('/');
    if (!push(`## ${edgeLabel} → ${labels} (${total}${shown.length < total ? `, showing ${shown.length}` : ''})`)) {
      truncated[edgeLabel] = { total, included: 0 };
      continue;
    }
    let included = 0;
    for (const h of shown) {
      const v = h.vertex;
      const arrow = h.direction === 'out' ? '→' : '←';
      const depth = h.depth > 1 ? ` [depth ${h.depth}]` : '';
      if (
        !push(
          `- ${arrow} ${v.label} ${nameOf(v)} (entity_id ${v.entity_id})${depth}: ${render(v.properties, significantOf(v, options.entityTypes))}`,
        )
      )
        break;
      mark(v);
      included++;
    }
    if (included < total) {
      truncated[edgeLabel] = { total, included };
      if (!cut)
        push(
          `- … ${total - included} more ${edgeLabel} relationships not shown (limit ${options.maxPerRelationship} per relationship)`,
        );
    }
  }
  if (cut)
    lines.push(`[context truncated at the ${budget}-token limit; relationships_truncated lists what is missing]`);
  let text = lines.join('\n');
  let tokens = countTokens(text);
  if (tokens > budget) {
    // Per-line counts can drift from the joined text's count; the backstop is absolute.
    ({ text, tokens } = truncateToTokens(text, budget));
    cut = true;
  }
  return {
    text,
    token_estimate: tokens,
    fields_highlighted: significant,
    detection_results_included: detection,
    entities_referenced: [...referenced.values()],
    truncation_occurred: cut || Object.keys(truncated).length > 0,
    relationships_truncated: truncated,
    sections_included: [...sections].sort(),
  };
}
