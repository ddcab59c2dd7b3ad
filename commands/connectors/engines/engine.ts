import type { ZodType } from 'zod';
import type { EngineKey, ProbeResult } from '../../../streams/connectors/connector';

/**
 * What a connector engine does for the platform. Every run opens a fresh connection to the
 * address the egress check pinned and closes it afterwards: no session state survives a run.
 */

export interface RunLimits {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

export interface EngineRun {
  config: Record<string, unknown>;
  credential: Record<string, string>;
  /** The host as configured (TLS name) and the address egress checked (where we connect). */
  host: string;
  address: string;
  limits: RunLimits;
}

export interface DiscoveredTable {
  schema: string;
  name: string;
  columns: { name: string; type: string; nullable: boolean }[];
}

export interface TableResult {
  columns: { name: string; type: string }[];
  rows: unknown[][];
  truncated: boolean;
}

export interface ProbeOutcome {
  ok: boolean;
  reasons: string[];
  serverVersion: string | null;
}

export interface ConnectorEngine {
  key: EngineKey;
  title: string;
  configSchema: ZodType<Record<string, unknown>>;
  credentialSchema: ZodType<Record<string, string>>;
  credentialFields: string[];
  /** How read-only, egress pinning and timeouts are enforced (GET /connectors/engines). */
  capabilities: Record<string, string | boolean>;
  /** The host name the egress check resolves. */
  hostOf(config: Record<string, unknown>): string;
  /** Proof that the credential can only read; reasons name each refused privilege. */
  probe(run: EngineRun): Promise<ProbeOutcome>;
  discover(run: EngineRun, maxColumns: number): Promise<{ tables: DiscoveredTable[]; truncated: boolean }>;
  /** `boundSql` has positional placeholders; `values` are bound by the driver. */
  execute(run: EngineRun, boundSql: string, values: unknown[], rowCap: number): Promise<TableResult>;
}

export type { ProbeResult };

/** A trailing `;` (and comments after it) would break the row-cap wrapper. */
export function withoutTrailingSemicolon(sql: string): string {
  return sql.replace(/;(\s|--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/)*$/, '');
}

/** Values as JSON carries them: dates as ISO text, bytes as base64, bigints as text. */
export function jsonValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (typeof value === 'bigint') return value.toString();
  return value;
}
