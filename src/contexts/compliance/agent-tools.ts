import { z } from 'zod';
import type { AgentTool, ToolProvider } from '../../platform/agent-tools';
import { headersFor } from '../../platform/agent-tools';
import { requireToolPermission } from '../../platform/agent-tools';
import type { PlatformDeps } from '../../platform/context-module';
import { NotFound } from '../../platform/domain-errors';
import { summary } from '../../../queries/compliance/dashboard';
import { bucketEntities, type CellView, entityStatus, GROUPINGS } from '../../../queries/compliance/entity-status';
import { MATRIX_BUCKETS } from '../../../queries/compliance/dashboard';
import { COLORS, LIST_GROUPINGS, listEntities } from '../../../queries/compliance/entity-list';
import { wellContext } from '../../../queries/graph/well-context';
import { namespaceOf } from '../../../streams/graph/names';
import { graphFacts } from '../../../queries/compliance/graph-facts';
import { formPrUnit, type ProductionFacts } from '../../../commands/compliance/packs/production';
import type { DomainPack } from '../../../commands/compliance/packs/pack';

/**
 * The compliance dashboard as agent tools: one entity's verdicts (with the rule's name and
 * the reason in words), the portfolio's buckets and an entity's deadlines. Same read model,
 * same `dashboards.read` permission as GET /compliance/*; the text is what a model reads,
 * `result` the table the console shows.
 */
const READ = 'dashboards.read';

/** The dashboard's colors in words, worst first. */
export const STATUS_WORDS: Record<string, string> = {
  red: 'not compliant',
  amber: 'action needed',
  blue: 'in review',
  green: 'compliant',
  grey: 'not assessed',
};
const SEVERITY: Record<string, number> = { red: 4, amber: 3, blue: 2, green: 1, grey: 0 };
export const BUCKET_WORDS: Record<string, string> = {
  overdue: 'overdue',
  due_7d: 'due within 7 days',
  due_30d: 'due within 30 days',
  anomalies: 'with open anomalies',
};

const DAY_MS = 86_400_000;
const daysBetween = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Rows of the dashboard by what they are: a lease files Form PR for its oil wells, an operator its P-5. */
const TYPE_NOTES: Record<string, string> = { Lease: ' (Form PR is filed per oil lease)' };

/** "31 overdue: 20 leases (Form PR is filed per oil lease), 9 wells, 2 operators." — or "9 wells are overdue." when they are all of one type. */
export function bucketCount(
  total: number,
  bucket: string,
  types: ReadonlyArray<{ type: string; count: number }>,
): string {
  if (types.length === 1 && bucket === 'anomalies')
    return `${noun(types[0].type, total)} ${total === 1 ? 'has' : 'have'} open anomalies.`;
  return countSentence(total, BUCKET_WORDS[bucket], types);
}

const noun = (type: string, n: number) => plural(n, type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase());
/** "9 wells are overdue." for one type; "31 overdue: 20 leases (…), 9 wells, 2 operators." for several; "Nothing is overdue." */
export function countSentence(
  total: number,
  predicate: string,
  types: ReadonlyArray<{ type: string; count: number }>,
): string {
  if (total === 0) return `Nothing is ${predicate}.`;
  if (types.length === 1) return `${noun(types[0].type, total)} ${total === 1 ? 'is' : 'are'} ${predicate}.`;
  return `${total} ${predicate}: ${types.map((t) => `${noun(t.type, t.count)}${TYPE_NOTES[t.type] ?? ''}`).join(', ')}.`;
}

export function complianceAgentTools(
  deps: Pick<PlatformDeps, 'knex' | 'clock' | 'config'>,
  packs: DomainPack<any>[],
): ToolProvider {
  const { knex } = deps;
  const domains = packs.map((p) => p.domain);
  const titleOf = (domain: string) => packs.find((p) => p.domain === domain)?.title ?? domain;
  const today = () => deps.clock().toISOString().slice(0, 10);

  const production = packs.find((p) => p.domain === 'production');
  /** A well with no Form PR verdict of its own whose oil lease files it (Statewide Rule 58): the lease and its Form PR verdict. */
  const formPrLeaseOf = async (
    tenantId: string,
    status: { entity_id: string; entity_type: string; cells: CellView[] },
  ) => {
    if (!production || status.entity_type !== 'Well' || status.cells.some((c) => c.domain === 'production'))
      return null;
    const graph = graphFacts(knex, namespaceOf(tenantId));
    const [row] = await graph.vertices('Well', ['name', ...production.entityFields], { entityId: status.entity_id });
    if (!row) return null;
    const facts = (await production.load(graph, [row.id])) as ProductionFacts;
    if (formPrUnit({ vertexId: row.id, entityId: row.entity_id, label: row.label, properties: row.properties }, facts))
      return null;
    const lease = facts.leaseOfWell.get(row.id)?.[0];
    const leaseStatus = lease ? await entityStatus(knex, tenantId, lease.entityId, domains) : null;
    return leaseStatus
      ? { ...leaseStatus, cell: leaseStatus.cells.find((c) => c.domain === 'production') ?? null }
      : null;
  };

  const statusTool: AgentTool = {
    name: 'compliance_status',
    description:
      'Whether one entity (a well by API number, a lease…) is compliant: its verdict per compliance rule (Rule 32 flaring, Rule 37 spacing, Form PR, drilling permits, inactive wells) with the reason and due date.',
    parameters: z
      .object({ entity_id: z.string().min(1).max(200).describe('API number of a well, or the entity id') })
      .strict(),
    async run(args, caller) {
      requireToolPermission(caller, READ, deps.config);
      const { entity_id } = args as { entity_id: string };
      const status = await entityStatus(knex, caller.tenantId, entity_id, domains);
      if (!status)
        throw new NotFound(
          `${entity_id} has no compliance assessment (unknown entity, or the portfolio was not assessed yet: POST /compliance/assess)`,
        );
      const cells = [...status.cells].sort(
        (a, b) => SEVERITY[b.color] - SEVERITY[a.color] || a.domain.localeCompare(b.domain),
      );
      const worst = cells[0]?.color ?? 'grey';
      const failing = cells.filter((c) => c.color === 'red');
      const label = `${status.entity_type} ${status.entity_name} (${status.entity_id})`;
      const headline =
        worst === 'red'
          ? `${label} is not compliant: ${plural(failing.length, 'rule')} violated or overdue out of ${cells.length} assessed.`
          : worst === 'amber'
            ? `${label} is compliant today but needs action on ${plural(cells.filter((c) => c.color === 'amber').length, 'rule')}.`
            : worst === 'grey'
              ? `${label} has not been assessed against any rule yet.`
              : `${label} is compliant with all ${plural(cells.length, 'assessed rule')}.`;
      const lines = cells.map(
        (c) =>
          `- ${titleOf(c.domain)}: ${STATUS_WORDS[c.color] ?? c.color} — ${c.reason}${c.due_date && !c.reason.includes(c.due_date) ? ` (due ${c.due_date})` : ''}.`,
      );
      const onLease = await formPrLeaseOf(caller.tenantId, status);
      if (onLease)
        lines.push(
          `- ${titleOf('production')}: filed per oil lease, on ${onLease.entity_type} ${onLease.entity_name} (${onLease.entity_id})${onLease.cell ? ` — ${STATUS_WORDS[onLease.cell.color] ?? onLease.cell.color}: ${onLease.cell.reason}` : ''}.`,
        );
      const anomalies = status.anomalies.map(
        (a) => `- Open anomaly (${titleOf(a.domain)}): ${a.detail}, observed ${a.observed_at.slice(0, 10)}.`,
      );
      return {
        content: [headline, ...lines, ...anomalies].join('\n'),
        result: {
          kind: 'table',
          title: `Compliance of ${status.entity_name}`,
          columns: ['rule', 'status', 'reason', 'due_date'],
          headers: headersFor(['rule', 'status', 'reason', 'due_date']),
          rows: cells.map((c) => ({
            rule: titleOf(c.domain),
            domain: c.domain,
            status: STATUS_WORDS[c.color] ?? c.color,
            color: c.color,
            reason: c.reason,
            due_date: c.due_date,
          })),
          total_rows: cells.length,
          overall: STATUS_WORDS[worst],
          entities: [{ entity_id: status.entity_id, name: status.entity_name, entity_type: status.entity_type }],
        },
      };
    },
  };

  const portfolioTool: AgentTool = {
    name: 'compliance_portfolio',
    description:
      "The portfolio's compliance buckets: counts of entities overdue, due within 7 or 30 days and with anomalies, and the entities of one bucket with the reason, grouped by operator, lease or domain.",
    parameters: z
      .object({
        bucket: z.enum(MATRIX_BUCKETS).default('overdue').describe('overdue, due_7d, due_30d or anomalies'),
        group_by: z
          .enum(GROUPINGS)
          .default('operator')
          .describe("count the bucket's entities by operator, lease or domain"),
        limit: z.number().int().min(1).max(50).default(10).describe('how many entities to list'),
      })
      .strict(),
    async run(args, caller) {
      requireToolPermission(caller, READ, deps.config);
      const a = args as {
        bucket: (typeof MATRIX_BUCKETS)[number];
        group_by: (typeof GROUPINGS)[number];
        limit: number;
      };
      const at = deps.clock();
      const [counts, found] = await Promise.all([
        summary(knex, caller.tenantId, at),
        bucketEntities(knex, caller.tenantId, at, domains, a.bucket, a.group_by, a.limit),
      ]);
      const lines = [
        `Portfolio on ${today()}: ${counts.overdue_count} overdue, ${counts.due_7_days_count} due within 7 days, ${counts.due_30_days_count} due within 30 days, ${counts.anomaly_count} with anomalies.`,
        found.total === 0 ? `Nothing is ${BUCKET_WORDS[a.bucket]}.` : bucketCount(found.total, a.bucket, found.types),
      ];
      if (found.total > 0) {
        const groupWord = a.group_by === 'domain' ? 'rule' : a.group_by;
        const groups = found.groups
          .slice(0, 5)
          .map((g) => `${a.group_by === 'domain' ? titleOf(g.key) : g.key} (${g.count})`);
        lines.push(
          `By ${groupWord}: ${groups.join('; ')}${found.groups.length > 5 ? `; and ${found.groups.length - 5} more` : ''}.`,
        );
        for (const r of found.rows) {
          const why = r.cells.map((c) => `${titleOf(c.domain)}: ${c.reason}`).join('; ');
          lines.push(
            `- ${r.entity_name} (${r.entity_id})${r.operator ? `, ${r.operator}` : ''}${why ? ` — ${why}` : ''}.`,
          );
        }
        if (found.total > found.rows.length) lines.push(`… and ${found.total - found.rows.length} more.`);
      }
      return {
        content: lines.join('\n'),
        result: {
          kind: 'table',
          title: `${found.types.length === 1 ? `${found.types[0].type}s` : 'Entities'} ${BUCKET_WORDS[a.bucket]}`,
          types: found.types,
          bucket: a.bucket,
          counts: {
            overdue: counts.overdue_count,
            due_7d: counts.due_7_days_count,
            due_30d: counts.due_30_days_count,
            anomalies: counts.anomaly_count,
          },
          group_by: a.group_by,
          groups: found.groups,
          columns: ['entity_id', 'entity_name', 'operator', 'lease', 'rule', 'reason', 'due_date'],
          headers: headersFor(['entity_id', 'entity_name', 'operator', 'lease', 'rule', 'reason', 'due_date']),
          rows: found.rows.map((r) => ({
            entity_id: r.entity_id,
            entity_name: r.entity_name,
            operator: r.operator,
            lease: r.lease,
            rule: r.cells.map((c) => titleOf(c.domain)).join('; '),
            reason: r.cells.map((c) => c.reason).join('; '),
            due_date: r.next_due,
          })),
          total_rows: found.total,
          entities: found.rows.map((r) => ({
            entity_id: r.entity_id,
            name: r.entity_name,
            entity_type: r.entity_type,
          })),
        },
      };
    },
  };

  const deadlinesTool: AgentTool = {
    name: 'compliance_deadlines',
    description:
      'The deadlines of one well: due dates from its compliance verdicts and the compliance deadlines the knowledge graph records (Form PR, H-15 tests…), with days left or overdue.',
    parameters: z.object({ entity_id: z.string().min(1).max(200).describe('API number of a well') }).strict(),
    async run(args, caller) {
      requireToolPermission(caller, READ, deps.config);
      const { entity_id } = args as { entity_id: string };
      const [status, graph] = await Promise.all([
        entityStatus(knex, caller.tenantId, entity_id, domains),
        wellContext(knex, namespaceOf(caller.tenantId), entity_id).catch(() => null),
      ]);
      if (!status && !graph) throw new NotFound(`no well ${entity_id} in the knowledge graph`);
      const now = today();
      const items: Array<{ due_date: string; what: string; rule: string; source: string }> = [];
      for (const c of (status?.cells ?? []) as CellView[])
        if (c.due_date)
          items.push({ due_date: c.due_date, what: c.reason, rule: titleOf(c.domain), source: 'compliance' });
      for (const d of (graph?.compliance_deadlines ?? []) as Array<Record<string, string | undefined>>) {
        const due = String(d.deadline_date ?? '');
        if (!/^\d{4}-\d{2}-\d{2}/.test(due)) continue;
        items.push({
          due_date: due.slice(0, 10),
          what: `${d.type ?? d.form ?? 'deadline'}${d.period ? ` for ${d.period}` : ''} (${d.status ?? 'open'})`,
          rule: d.form ? `Form ${d.form}` : 'deadline',
          source: `graph:ComplianceDeadline/${d.entity_id}`,
        });
      }
      items.sort((a, b) => a.due_date.localeCompare(b.due_date));
      const name =
        status?.entity_name ?? String((graph?.well as Record<string, unknown> | undefined)?.name ?? entity_id);
      const when = (due: string) => {
        const days = daysBetween(now, due);
        return days < 0 ? `overdue by ${plural(-days, 'day')}` : days === 0 ? 'due today' : `in ${plural(days, 'day')}`;
      };
      const lines =
        items.length === 0
          ? [`Well ${name} (${entity_id}) has no recorded deadline.`]
          : [
              `Deadlines of well ${name} (${entity_id}) as of ${now}:`,
              ...items.map((i) => `- ${i.due_date} (${when(i.due_date)}): ${i.rule} — ${i.what}.`),
            ];
      return {
        content: lines.join('\n'),
        result: {
          kind: 'table',
          title: `Deadlines of ${name}`,
          columns: ['due_date', 'rule', 'what', 'source'],
          headers: headersFor(['due_date', 'rule', 'what', 'source']),
          rows: items,
          total_rows: items.length,
          entities: [{ entity_id, name, entity_type: status?.entity_type ?? 'Well' }],
        },
      };
    },
  };

  const ListArgs = z
    .object({
      entity_type: z.enum(['Well', 'Lease', 'Operator']).optional().describe('only wells, leases or operators'),
      domain: z
        .string()
        .min(1)
        .max(64)
        .optional()
        .describe(`one rule: ${packs.map((p) => `${p.domain} (${p.title})`).join(', ')}`),
      colors: z
        .array(z.enum(COLORS))
        .max(5)
        .optional()
        .describe('red: not compliant, amber: action needed, blue: in review, green: compliant, grey: not assessed'),
      overdue: z
        .boolean()
        .optional()
        .describe('only overdue work: a filing, test, renewal or plugging deadline before today'),
      operator: z.string().min(1).max(200).optional().describe('entity id of the operator (find_entities)'),
      lease: z.string().min(1).max(200).optional().describe('entity id of the lease (find_entities)'),
      county: z.string().min(1).max(100).optional().describe('county name, e.g. Midland'),
      group_by: z
        .enum(LIST_GROUPINGS)
        .default('operator')
        .describe('count the entities found by operator, lease, rule (domain) or county'),
      limit: z.number().int().min(1).max(50).default(10),
    })
    .strict();
  const listTool: AgentTool = {
    name: 'compliance_list',
    description:
      "The portfolio's wells, leases or operators filtered by rule, colour (red not compliant, amber action needed, green compliant), overdue work, operator, lease or county: how many, counts by operator, lease, rule or county, and the entities with the matching verdicts' reasons and due dates.",
    parameters: ListArgs,
    async run(args, caller) {
      requireToolPermission(caller, READ, deps.config);
      const a = args as z.infer<typeof ListArgs>;
      if (a.domain && !domains.includes(a.domain))
        throw new NotFound(`no rule ${a.domain}; the rules are ${domains.join(', ')}`);
      const nameOf = async (id: string | undefined) =>
        id ? ((await entityStatus(knex, caller.tenantId, id, domains))?.entity_name ?? id) : null;
      const [found, operatorName, leaseName] = await Promise.all([
        listEntities(
          knex,
          caller.tenantId,
          today(),
          domains,
          {
            entityType: a.entity_type,
            domain: a.domain,
            colors: a.colors,
            overdue: a.overdue,
            operator: a.operator,
            lease: a.lease,
            county: a.county,
          },
          a.group_by,
          a.limit,
        ),
        nameOf(a.operator),
        nameOf(a.lease),
      ]);
      const colorWords = a.colors?.length ? a.colors.map((c) => STATUS_WORDS[c]).join(' or ') : null;
      const predicate = [
        a.overdue ? 'overdue' : (colorWords ?? 'on record'),
        a.domain ? `${a.overdue || colorWords ? 'on' : 'for'} ${titleOf(a.domain)}` : null,
        operatorName ? `of operator ${operatorName}` : null,
        leaseName ? `on lease ${leaseName}` : null,
        a.county ? `in ${a.county} county` : null,
      ]
        .filter(Boolean)
        .join(' ');
      const types = a.entity_type && found.total === 0 ? [{ type: a.entity_type, count: 0 }] : found.types;
      const lines = [
        found.total === 0 && a.entity_type
          ? `No ${a.entity_type.toLowerCase()} is ${predicate}.`
          : countSentence(found.total, predicate, types),
      ];
      if (found.total > 0) {
        const groupWord = a.group_by === 'domain' ? 'rule' : a.group_by;
        const groups = found.groups
          .slice(0, 5)
          .map((g) => `${a.group_by === 'domain' ? titleOf(g.key) : g.key} (${g.count})`);
        lines.push(
          `By ${groupWord}: ${groups.join('; ')}${found.groups.length > 5 ? `; and ${found.groups.length - 5} more` : ''}.`,
        );
        for (const r of found.rows) {
          const why = r.cells
            .map(
              (c) =>
                `${titleOf(c.domain)}: ${c.reason}${c.due_date && !c.reason.includes(c.due_date) ? ` (due ${c.due_date})` : ''}`,
            )
            .join('; ');
          lines.push(
            `- ${r.entity_name} (${r.entity_id})${r.operator && r.entity_type !== 'Operator' ? `, ${r.operator}` : ''}${why ? ` — ${why}` : ''}.`,
          );
        }
        if (found.total > found.rows.length) lines.push(`… and ${found.total - found.rows.length} more.`);
      }
      const columns = [
        'entity_name',
        'entity_id',
        'entity_type',
        'operator',
        'lease',
        'county',
        'rule',
        'reason',
        'due_date',
      ];
      return {
        content: lines.join('\n'),
        result: {
          kind: 'table',
          title: lines[0],
          types: found.types,
          group_by: a.group_by,
          groups: found.groups,
          columns,
          headers: headersFor(columns),
          rows: found.rows.map((r) => ({
            entity_name: r.entity_name,
            entity_id: r.entity_id,
            entity_type: r.entity_type,
            operator: r.operator,
            lease: r.lease,
            county: r.county,
            rule: r.cells.map((c) => titleOf(c.domain)).join('; '),
            reason: r.cells.map((c) => c.reason).join('; '),
            due_date: r.next_due,
          })),
          total_rows: found.total,
          entities: found.rows.map((r) => ({
            entity_id: r.entity_id,
            name: r.entity_name,
            entity_type: r.entity_type,
          })),
        },
      };
    },
  };

  const tools = [statusTool, portfolioTool, deadlinesTool, listTool];
  return { tools: async () => tools };
}
