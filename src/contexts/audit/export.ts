import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type ExcelJS from 'exceljs';
import type { Knex } from 'knex';
import { createAnchor } from '../../platform/eventstore/audit-trail';
import type { StreamHeads } from '../../platform/eventstore/postgres/stream-heads';
import { shown } from '../../platform/audit/catalog';
import type { ResolvedReview, ReviewDeps } from './review';
import { type AuditEntry, type AuditQuery, AuditReader, changeText, streamsOf } from './timeline';

export type AuditFormat = 'table' | 'json' | 'csv' | 'xlsx';
export const AUDIT_FORMATS: readonly AuditFormat[] = ['table', 'json', 'csv', 'xlsx'];

export interface ExportSummary {
  events: number;
  verified: number;
  tampered: number;
  first: string | null;
  last: string | null;
  anchor: { digest: string; streams: number; createdAt: string; signature: string } | null;
}

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

const actorText = (e: AuditEntry) => (e.actor.email ? `${e.actor.email} [${e.actor.roles.join(', ')}]` : e.actor.id);
const changesText = (e: AuditEntry) => e.changes.map(changeText).join('; ');

/** The `streams` head table read through knex: what `ops audit anchor` digests. */
function knexStreamHeads(knex: Knex): Pick<StreamHeads, 'page'> {
  return {
    async page(after, limit) {
      const rows: Array<{ stream_id: string; revision: string; last_signature: string | null }> = await knex('streams')
        .select('stream_id', knex.raw('revision::text AS revision'), 'last_signature')
        .modify((q) => {
          if (after !== null) q.where('stream_id', '>', after);
        })
        .orderBy('stream_id')
        .limit(limit);
      return rows.map((r) => ({ stream: r.stream_id, revision: BigInt(r.revision), signature: r.last_signature }));
    },
  };
}

/** A fresh anchor's digest of every stream head (PostgreSQL store); null on EventStoreDB. */
export async function currentAnchor(deps: ReviewDeps, now: Date): Promise<ExportSummary['anchor']> {
  if (deps.store.kind !== 'postgres') return null;
  const anchor = await createAnchor(knexStreamHeads(deps.knex) as StreamHeads, deps.signer, now);
  return { digest: anchor.digest, streams: anchor.streams, createdAt: anchor.created_at, signature: anchor.signature };
}

function summaryOf(
  reader: AuditReader,
  events: number,
  first: string | null,
  last: string | null,
  anchor: ExportSummary['anchor'],
): ExportSummary {
  return { events, verified: reader.verified, tampered: reader.tamperedCount, first, last, anchor };
}

export const verificationText = (s: Pick<ExportSummary, 'events' | 'verified' | 'tampered'>) =>
  s.tampered === 0
    ? `all ${s.events} entries verified (each signature matches its event and its predecessor)`
    : `${s.tampered} of ${s.events} entries TAMPERED (signature does not match); ${s.verified} verified`;

const CSV_COLUMNS = [
  'time',
  'entity',
  'revision',
  'actor_email',
  'actor_roles',
  'actor_id',
  'event',
  'event_type',
  'action',
  'changes',
  'correlation_id',
  'signature',
  'event_id',
] as const;

function csvCell(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvRow(e: AuditEntry): string {
  return [
    e.time,
    `${e.entity.kind}:${e.entity.id}`,
    e.revision,
    e.actor.email ?? '',
    e.actor.roles.join(' '),
    e.actor.id,
    e.summary,
    e.type,
    e.action ?? '',
    changesText(e),
    e.correlationId,
    e.signature,
    e.eventId,
  ]
    .map(csvCell)
    .join(',');
}

/** A human line per entry, the changed fields indented below. */
export function tableLines(e: AuditEntry): string {
  const head = `${e.time}  ${actorText(e).padEnd(36)}  ${`${e.entity.kind} ${e.entity.id}`.padEnd(30)}  ${e.summary}${e.action ? `  action=${e.action}` : ''}  [req ${e.correlationId || '-'}]  ${e.signature === 'verified' ? 'verified' : 'TAMPERED'}`;
  return [head, ...e.changes.map((c) => `      ${changeText(c)}`)].join('\n');
}

/** Streams a timeline as table, JSON or CSV text: one pass, one page of the index at a time. */
export async function exportText(
  deps: ReviewDeps,
  review: ResolvedReview,
  format: Exclude<AuditFormat, 'xlsx'>,
  out: Writable,
  now = new Date(),
): Promise<ExportSummary> {
  const reader = new AuditReader(deps);
  let events = 0;
  let first: string | null = null;
  let last: string | null = null;
  if (format === 'csv') await write(out, `${CSV_COLUMNS.join(',')}\n`);
  if (format === 'json')
    await write(
      out,
      `{"filters":${JSON.stringify(review.described)},"tenant_id":${JSON.stringify(review.query.tenantId)},"events":[`,
    );
  for await (const e of reader.entries(review.query)) {
    if (format === 'table') await write(out, `${tableLines(e)}\n`);
    else if (format === 'csv') await write(out, `${csvRow(e)}\n`);
    else await write(out, `${events === 0 ? '\n' : ',\n'}${JSON.stringify(e)}`);
    events++;
    first ??= e.time;
    last = e.time;
  }
  const anchor = format === 'json' ? await currentAnchor(deps, now) : null;
  const summary = summaryOf(reader, events, first, last, anchor);
  if (format === 'json') {
    await write(out, `\n],"summary":${JSON.stringify({ ...summary, verification: verificationText(summary) })}}\n`);
  } else if (format === 'table') {
    await write(out, `${events} events; ${verificationText(summary)}\n`);
  }
  return summary;
}

interface SheetGroup {
  title: string;
  query: AuditQuery;
}

const MAX_ENTITY_SHEETS = 100;

/**
 * One sheet per entity: the named entities when the reviewer named them, else every entity
 * the filters touch; past 100 entities, one sheet per entity kind (the Entity column tells
 * them apart). Each sheet is its own pass over the index, so sheets stream one after another.
 */
async function sheetGroups(deps: ReviewDeps, review: ResolvedReview): Promise<SheetGroup[]> {
  const { registry } = deps;
  const tenantId = review.query.tenantId;
  if (review.targets.length > 0 && review.targets.length <= MAX_ENTITY_SHEETS) {
    return review.targets.map((t) => ({
      title: t.title,
      query: { ...review.query, streams: [registry.streamOf(t, tenantId)] },
    }));
  }
  const streams = await streamsOf(deps.knex, review.query);
  const byEntity = new Map<string, { kind: string; streams: string[] }>();
  for (const { stream } of streams) {
    const entity = registry.entityOf(stream, tenantId);
    const key = `${entity.kind} ${entity.id}`;
    const group = byEntity.get(key) ?? { kind: entity.kind, streams: [] };
    group.streams.push(stream);
    byEntity.set(key, group);
  }
  if (byEntity.size <= MAX_ENTITY_SHEETS) {
    return [...byEntity.entries()].map(([title, g]) => ({ title, query: { ...review.query, streams: g.streams } }));
  }
  const byKind = new Map<string, string[]>();
  for (const g of byEntity.values()) byKind.set(g.kind, [...(byKind.get(g.kind) ?? []), ...g.streams]);
  return [...byKind.entries()].map(([kind, list]) => {
    const known = registry.aggregate(kind);
    return {
      title: `${kind} (all)`,
      query: known
        ? { ...review.query, streamPrefixes: [registry.prefixOf(kind)] }
        : { ...review.query, streams: list },
    };
  });
}

function sheetName(title: string, used: Set<string>): string {
  const base =
    title
      .replace(/[[\]:*?/\\]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 28) || 'entity';
  let name = base;
  for (let i = 2; used.has(name.toLowerCase()); i++) name = `${base.slice(0, 26)}~${i}`;
  used.add(name.toLowerCase());
  return name;
}

const COLUMNS: Array<Partial<ExcelJS.Column>> = [
  { header: 'Time (UTC)', key: 'time', width: 26 },
  { header: 'Actor', key: 'actor', width: 30 },
  { header: 'Actor roles then', key: 'roles', width: 22 },
  { header: 'Event', key: 'summary', width: 50 },
  { header: 'Changed (before → after)', key: 'changes', width: 60 },
  { header: 'Request (correlation id)', key: 'correlation', width: 38 },
  { header: 'Signature', key: 'signature', width: 11 },
  { header: 'Entity', key: 'entity', width: 40 },
  { header: 'Revision', key: 'revision', width: 9 },
  { header: 'Event type', key: 'type', width: 28 },
  { header: 'Event id', key: 'eventId', width: 38 },
];

/**
 * The auditor's workbook, streamed (exceljs WorkbookWriter): one sheet per entity with a
 * frozen header row, then a cover sheet — range, filters, verification result, anchor digest —
 * which is written last (only then is the verification known) and listed first.
 */
export async function exportXlsx(
  deps: ReviewDeps,
  review: ResolvedReview,
  out: Writable,
  meta: { exportedBy: string; exportId?: string },
  now = new Date(),
): Promise<ExportSummary> {
  // exceljs (and its zip writers) load with the first export, not at boot.
  const { stream } = require('exceljs') as typeof ExcelJS;
  const workbook = new stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  workbook.creator = 'compliance-platform audit export';
  workbook.created = now;
  const reader = new AuditReader(deps);
  const used = new Set<string>(['cover']);
  let events = 0;
  let first: string | null = null;
  let last: string | null = null;
  const sheets: Array<{ name: string; title: string; events: number }> = [];
  for (const group of await sheetGroups(deps, review)) {
    const name = sheetName(group.title, used);
    const sheet = workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = COLUMNS;
    sheet.getRow(1).font = { bold: true };
    let count = 0;
    for await (const e of reader.entries(group.query)) {
      const row = sheet.addRow({
        time: e.time,
        actor: e.actor.email ?? e.actor.id,
        roles: e.actor.roles.join(', '),
        summary: e.action ? `${e.summary} (action ${e.action})` : e.summary,
        changes: e.changes.map(changeText).join('\n'),
        correlation: e.correlationId,
        signature: e.signature,
        entity: `${e.entity.kind}:${e.entity.id}`,
        revision: e.revision,
        type: e.type,
        eventId: e.eventId,
      });
      if (e.signature !== 'verified') row.font = { color: { argb: 'FFC00000' }, bold: true };
      row.commit();
      count++;
      events++;
      if (first === null || e.time < first) first = e.time;
      if (last === null || e.time > last) last = e.time;
    }
    await sheet.commit();
    sheets.push({ name, title: group.title, events: count });
  }
  const anchor = await currentAnchor(deps, now);
  const summary = summaryOf(reader, events, first, last, anchor);
  const cover = workbook.addWorksheet('Cover');
  cover.columns = [
    { key: 'k', width: 28 },
    { key: 'v', width: 100 },
  ];
  const line = (k: string, v: unknown) => cover.addRow({ k, v: typeof v === 'string' ? v : shown(v) }).commit();
  cover.addRow({ k: 'Audit trail export' }).font = { bold: true, size: 14 };
  line('Tenant', review.query.tenantId);
  line('Exported at (UTC)', now.toISOString());
  line('Exported by', meta.exportedBy);
  if (meta.exportId) line('Export id (audited)', meta.exportId);
  line(
    'Filters',
    Object.entries(review.described)
      .map(([k, v]) => `--${k} ${v}`)
      .join(' ') || '(whole tenant)',
  );
  line(
    'Range requested',
    `${review.query.from?.toISOString() ?? 'beginning of the log'} to ${review.query.to?.toISOString() ?? now.toISOString()}`,
  );
  line('Range covered', first ? `${first} to ${last}` : 'no events');
  line('Events', String(events));
  line('Verification', verificationText(summary));
  for (const t of reader.tampered.slice(0, 50))
    line('  tampered', `${t.time} ${t.entity.kind}:${t.entity.id} #${t.revision} ${t.type} (${t.eventId})`);
  line('Anchor digest (SHA-256)', anchor ? anchor.digest : 'none: EventStoreDB keeps no head table');
  if (anchor) {
    line('Anchor covers', `${anchor.streams} stream heads at ${anchor.createdAt}`);
    line('Anchor signature (HMAC)', anchor.signature);
    line(
      'How to check',
      'ops audit anchor --out FILE now and later ops audit verify --anchor FILE prove the log up to these heads is unchanged',
    );
  }
  line('Sheets', sheets.map((s) => `${s.name}: ${s.events} events`).join('; ') || '(none)');
  await cover.commit();
  // The cover is written last (the verification is known only then) but listed first.
  const internals = workbook as unknown as { _worksheets: unknown[] };
  const list = internals._worksheets.filter(Boolean);
  const reordered: unknown[] = []; // sparse like exceljs keeps it: index 0 is a hole
  [list[list.length - 1], ...list.slice(0, -1)].forEach((sheet, i) => (reordered[i + 1] = sheet));
  internals._worksheets = reordered;
  await workbook.commit();
  return summary;
}
