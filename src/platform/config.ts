import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DEFAULT_MODEL_ID, MODEL_IDS } from './infra/llm/model-options';
import type { TracingConfig } from './observability/tracing';

/**
 * The one place that reads the environment. Everything else receives a `Config`
 * from the composition root; no module reads `process.env` on its own.
 */

// Development defaults are usable locally and refused in production.
export const DEV_AUDIT_SIGNING_KEY = 'dev-audit-signing-key-change-me-in-production!!';
export const DEV_JWT_SECRET = 'dev-jwt-secret-change-me-in-production-0123456789';
export const DEV_SECRET_STORE_KEY = 'dev-secret-store-key-change-me-in-production-0123';

const port = z.coerce.number().int().min(0).max(65535);

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: port.default(8080),
  INTERNAL_PORT: port.default(8081),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./.data'),
  DATABASE_URL: z.string().url().optional(),
  /** The least-privileged role the platform runs as when DATABASE_URL is a superuser; `none` to connect as given. */
  DATABASE_APP_ROLE: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier or none')
    .default('platform_app'),
  /** Repeated statements prepared on each connection; `off` behind a transaction-mode pooler (PgBouncer). */
  DATABASE_PREPARED_STATEMENTS: z.enum(['on', 'off']).default('on'),
  EVENT_STORE: z.enum(['postgres', 'esdb']).default('postgres'),
  EVENTSTORE_URL: z.string().optional(),
  /** PostgreSQL store: how many groups of concurrent appends may commit at once (0: each append commits alone). */
  EVENTSTORE_GROUP_COMMIT: z.coerce.number().int().min(0).max(64).default(0),
  REDIS_URL: z.string().optional(),
  KAFKA_BROKERS: z.string().optional(),
  AUDIT_SIGNING_KEY: z.string().min(32).optional(),
  /** Ed25519 private key (PKCS#8 PEM) that signs filing evidence packages (docs/filings.md). */
  EVIDENCE_SIGNING_KEY: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Whether a reverse proxy sits in front: `true`, `false`, or a hop count. */
  TRUST_PROXY: z.string().default('false'),
  PROJECTION_WAIT_MS: z.coerce.number().int().min(0).default(5000),
  /** /health is `degraded` when a lane's oldest pending event is older than this (seconds). */
  LANE_LAG_DEGRADED_S: z.coerce.number().positive().default(60),
  /** How often a leader probes that its lock's session still holds the lock (ms). */
  LEADER_PROBE_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  COMMAND_RETRIES: z.coerce.number().int().min(0).max(20).default(3),
  ROLE: z.enum(['all', 'api', 'projector', 'bridge', 'graph-consumer']).default('all'),
  JWT_SECRET: z.string().optional(),
  SVC_AUTH_MODE: z.enum(['enforce', 'log']).default('enforce'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(100),
  BOOTSTRAP_ADMIN_EMAIL: z.string().email().optional(),
  BOOTSTRAP_ADMIN_PASSWORD: z.string().optional(),
  PUBLIC_BASE_URL: z.string().optional(),
  // Environment defaults for tenant settings; a tenant's own value wins.
  DEFAULT_LLM_MODEL: z
    .string()
    .default(DEFAULT_MODEL_ID)
    .refine((id) => MODEL_IDS.includes(id), {
      message: `must be a model id from the curated list (${MODEL_IDS.join(', ')})`,
    }),
  DEFAULT_MAX_TOKENS_PER_EXECUTION: z.coerce.number().int().min(1).default(100_000),
  DEFAULT_MAX_COST_PER_EXECUTION: z.coerce.number().positive().default(2),
  DEFAULT_THINKING_MODE: z.enum(['disabled', 'adaptive']).default('adaptive'),
  SECRET_STORE_KEY: z.string().min(32).optional(),
  BCRYPT_COST: z.coerce.number().int().min(10).max(15).default(12),
  /** Worker threads that read uploaded files; default: the cores, at least 2 and at most 4. */
  EXTRACTION_WORKERS: z.coerce.number().int().min(1).max(32).optional(),
  /** Longest one upload's text extraction may take before it answers 422. */
  EXTRACTION_TIME_LIMIT_MS: z.coerce.number().int().min(1).default(30_000),
  /** An extraction worker without work for this long exits (its memory with it). */
  EXTRACTION_IDLE_MS: z.coerce.number().int().min(1).default(30_000),
  /** Heap ceiling of one extraction worker: a file needing more answers 422, the process lives on. */
  EXTRACTION_WORKER_HEAP_MB: z.coerce.number().int().min(32).default(256),
  // Model providers for agent turns; `builtin/*` models need none of these.
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
  ANTHROPIC_API_KEY: z.string().optional(),
  /** The Anthropic Messages API base, e.g. a gateway or proxy (default https://api.anthropic.com/v1). */
  ANTHROPIC_BASE_URL: z.string().url().optional(),
  /** An OpenAI-compatible chat-completions endpoint serving the `local/*` models, e.g. http://gpu-box:8000/v1. */
  LOCAL_LLM_BASE_URL: z.string().url().optional(),
  LOCAL_LLM_API_KEY: z.string().optional(),
  /** Longest one agent turn may run before it fails with status `error`. */
  AGENT_TURN_TIMEOUT_MS: z.coerce.number().int().min(1000).default(300_000),
  /** When (HH:MM, UTC) the leader assesses every tenant's portfolio each day. */
  COMPLIANCE_ASSESS_AT: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM (UTC)')
    .default('02:00'),
  /** CIDRs a connector may reach although private (comma-separated), e.g. `10.20.0.0/16,127.0.0.0/8`. */
  CONNECTOR_EGRESS_ALLOW: z.string().default(''),
  CONNECTOR_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  CONNECTOR_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  /** Most rows one exposure run returns (agents and the internal execute route). */
  CONNECTOR_ROW_CAP: z.coerce.number().int().min(1).max(100_000).default(1_000),
  /** Most rows a preview returns. */
  CONNECTOR_PREVIEW_ROWS: z.coerce.number().int().min(1).max(10_000).default(50),
  // Optional mirror of expert eval scores to Langfuse's public ingestion API (all three or none).
  LANGFUSE_PUBLIC_KEY: z.string().optional(),
  LANGFUSE_SECRET_KEY: z.string().optional(),
  LANGFUSE_HOST: z.string().url().optional(),
  /**
   * Four eyes: whether an admin may decide an approval (or reject a checklist) they opened
   * themselves. Off by default; nobody else ever may.
   */
  APPROVALS_ADMIN_SELF_DECIDE: z.enum(['true', 'false']).default('false'),
  /** Bearer token that opens GET /metrics on the public listener; unset: it is served on the internal listener only. */
  METRICS_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16).optional()),
  /** Tenants that get a label of their own on the turn and spend metrics; the rest share `other`. */
  METRICS_TENANT_LABELS: z.coerce.number().int().min(0).max(1000).default(50),
  /** Delay before the one retry of an eval capture's snapshot check. */
  EVAL_SNAPSHOT_RETRY_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  // OpenTelemetry traces (docs/operations.md#tracing): on only when the endpoint is set.
  /** The collector's OTLP/HTTP base address, e.g. http://otel-collector:4318 (spans go to /v1/traces). */
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .refine((url) => /^https?:\/\//i.test(url), 'must be an http:// or https:// address (OTLP over HTTP)')
    .optional(),
  /** Headers sent with every export, `key=value` pairs separated by commas (a vendor's API key). */
  OTEL_EXPORTER_OTLP_HEADERS: z.string().default(''),
  OTEL_SERVICE_NAME: z.string().min(1).default('compliance-platform'),
  /** The share of new traces recorded, 0 to 1; a trace continued from a parent follows the parent. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /** Longest a finished span waits before it is sent (ms). */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).max(60_000).default(5000),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  production: boolean;
  http: { port: number; internalPort: number; host: string; trustProxy: boolean | number; publicBaseUrl: string };
  dataDir: string;
  /** Absent: start an embedded PostgreSQL under `dataDir`. */
  databaseUrl?: string;
  /** The role the platform runs as when the configured connection is a superuser; null: as given. */
  database: { appRole: string | null; preparedStatements: boolean };
  eventStore: { kind: 'postgres'; groupCommit: number } | { kind: 'esdb'; url: string };
  redisUrl?: string;
  kafkaBrokers?: string[];
  auditSigningKey: string;
  /**
   * The Ed25519 key that signs evidence packages, as PKCS#8 PEM: EVIDENCE_SIGNING_KEY, or outside
   * production one generated once into `dataDir` (`keyFile`) and kept across restarts.
   */
  evidence: { signingKeyPem: string; keyFile: string | null };
  jwtSecret: string;
  logLevel: Env['LOG_LEVEL'];
  projectionWaitMs: number;
  /** The processing runtime (docs/runtime.md): when a lag degrades /health, how often leadership is probed. */
  runtime: { laneLagDegradedS: number; leaderProbeMs: number };
  commandRetries: number;
  role: Env['ROLE'];
  authMode: Env['SVC_AUTH_MODE'];
  rateLimit: { perMinute: number; burst: number };
  bootstrapAdmin: { email: string; password: string; fromDefaults: boolean };
  /** Environment defaults behind tenant settings; `maxThinkingMode` is the thinking-mode ceiling. */
  settingsDefaults: {
    defaultModel: string;
    maxTokensPerExecution: number;
    maxCostUsdPerExecution: number;
    maxThinkingMode: 'disabled' | 'adaptive';
  };
  /** AES-256-GCM key material for the secret store. */
  secretStoreKey: string;
  /** bcrypt work factor for passwords (at least 10). */
  bcryptCost: number;
  /** The worker-thread pool that extracts text from uploads off the request thread. */
  extraction: { workers: number; timeLimitMs: number; idleMs: number; maxHeapMb: number };
  /** Model provider endpoints and keys (secrets: never logged), and the turn deadline. */
  llm: {
    openaiApiKey?: string;
    openaiBaseUrl?: string;
    anthropicApiKey?: string;
    anthropicBaseUrl?: string;
    localBaseUrl?: string;
    localApiKey?: string;
    turnTimeoutMs: number;
  };
  /** Connector egress allow-list, timeouts and row caps. */
  /** The daily portfolio assessment's time of day, `HH:MM` UTC. */
  compliance: { assessAt: string };
  connectors: {
    egressAllow: string[];
    statementTimeoutMs: number;
    connectTimeoutMs: number;
    rowCap: number;
    previewRows: number;
  };
  /** Evaluation: the Langfuse score mirror (null when not configured; the secret is never logged) and the snapshot re-check delay. */
  evaluation: { langfuse: { host: string; publicKey: string; secretKey: string } | null; snapshotRetryMs: number };
  /** Four eyes: `adminMayDecideOwn` lets an admin decide what they opened (APPROVALS_ADMIN_SELF_DECIDE). */
  approvals: { adminMayDecideOwn: boolean };
  /** OpenTelemetry traces; null: tracing is off and its SDK is never loaded. */
  tracing: TracingConfig | null;
  /** Prometheus metrics (docs/operations.md#metrics): the public listener's token, the tenant label cap. */
  metrics: { token: string | null; tenantLabels: number };
  /** Development defaults in use; printed loudly at start. */
  warnings: string[];
}

export class ConfigError extends Error {}

function parseTrustProxy(value: string): boolean | number {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  const hops = Number(value);
  if (Number.isInteger(hops) && hops >= 0) return hops;
  throw new ConfigError(`TRUST_PROXY must be true, false or a hop count, got "${value}"`);
}

/** `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs separated by commas, values percent-encoded (W3C baggage style). */
function parseOtlpHeaders(value: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of value.split(',')) {
    if (!pair.trim()) continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new ConfigError('OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas');
    try {
      headers[pair.slice(0, eq).trim()] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      throw new ConfigError(
        `OTEL_EXPORTER_OTLP_HEADERS: the value of ${pair.slice(0, eq).trim()} is not percent-encoded`,
      );
    }
  }
  return headers;
}

const EVIDENCE_KEY_FILE = 'evidence-signing-key.pem';

/** A PEM that is not an Ed25519 PKCS#8 private key stops the start: a wrong key would sign nothing verifiable. */
function ed25519Pem(name: string, pem: string): string {
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    if (key.asymmetricKeyType === 'ed25519') return pem;
    throw new ConfigError(`${name} must be an Ed25519 key, got ${key.asymmetricKeyType}`);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${name} is not a PKCS#8 PEM private key (${(error as Error).message})`);
  }
}

/**
 * Outside production without EVIDENCE_SIGNING_KEY: the key generated into DATA_DIR on the first
 * start, so packages signed yesterday still verify against today's JWKS.
 */
function developmentEvidenceKey(dataDir: string): { signingKeyPem: string; keyFile: string | null } {
  const keyFile = path.resolve(dataDir, EVIDENCE_KEY_FILE);
  if (existsSync(keyFile)) return { signingKeyPem: ed25519Pem(keyFile, readFileSync(keyFile, 'utf8')), keyFile };
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  try {
    mkdirSync(path.dirname(keyFile), { recursive: true });
    writeFileSync(keyFile, pem, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process on the same DATA_DIR wrote it first: both sign with that one.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return { signingKeyPem: ed25519Pem(keyFile, readFileSync(keyFile, 'utf8')), keyFile };
    // A DATA_DIR that cannot hold the key: this process signs with a key of its own. Every key
    // is published in the log at start, so what it signs still verifies after a restart; where
    // DATA_DIR matters (the embedded database) that start fails with its own readable reason.
    return { signingKeyPem: pem, keyFile: null };
  }
  return { signingKeyPem: pem, keyFile };
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const env = parsed.data;
  const production = env.NODE_ENV === 'production';
  const warnings: string[] = [];

  const devDefault = (name: string, value: string | undefined, fallback: string): string => {
    if (value) return value;
    if (production) throw new ConfigError(`${name} must be set when NODE_ENV=production`);
    warnings.push(`${name} is not set: using a development default (never use it in production)`);
    return fallback;
  };

  const jwtSecret = devDefault('JWT_SECRET', env.JWT_SECRET, DEV_JWT_SECRET);
  if (Buffer.byteLength(jwtSecret) < 32) throw new ConfigError('JWT_SECRET must be at least 32 bytes');

  if (env.EVENT_STORE === 'esdb' && !env.EVENTSTORE_URL) {
    throw new ConfigError('EVENT_STORE=esdb needs EVENTSTORE_URL');
  }
  const langfuseVars = [env.LANGFUSE_PUBLIC_KEY, env.LANGFUSE_SECRET_KEY, env.LANGFUSE_HOST].filter(Boolean).length;
  if (langfuseVars > 0 && langfuseVars < 3)
    throw new ConfigError(
      'LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY and LANGFUSE_HOST go together: set all three or none',
    );

  const bootstrapFromDefaults = !env.BOOTSTRAP_ADMIN_EMAIL || !env.BOOTSTRAP_ADMIN_PASSWORD;
  const bootstrapAdmin = {
    email: devDefault('BOOTSTRAP_ADMIN_EMAIL', env.BOOTSTRAP_ADMIN_EMAIL, 'admin@example.com'),
    password: devDefault('BOOTSTRAP_ADMIN_PASSWORD', env.BOOTSTRAP_ADMIN_PASSWORD, 'change-me-now'),
    fromDefaults: bootstrapFromDefaults,
  };

  let evidence: Config['evidence'];
  // A PEM in a one-line variable (a container's env file) arrives with its newlines written as backslash-n.
  if (env.EVIDENCE_SIGNING_KEY)
    evidence = {
      signingKeyPem: ed25519Pem('EVIDENCE_SIGNING_KEY', env.EVIDENCE_SIGNING_KEY.replace(/\\n/g, '\n')),
      keyFile: null,
    };
  else if (production)
    throw new ConfigError('EVIDENCE_SIGNING_KEY must be set when NODE_ENV=production (an Ed25519 PKCS#8 PEM)');
  else {
    evidence = developmentEvidenceKey(env.DATA_DIR);
    warnings.push(
      `EVIDENCE_SIGNING_KEY is not set: evidence packages are signed with a development key kept in ${evidence.keyFile}`,
    );
  }

  const egressAllow = env.CONNECTOR_EGRESS_ALLOW.split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  for (const cidr of egressAllow) {
    if (!ipaddr.isValidCIDR(cidr)) throw new ConfigError(`CONNECTOR_EGRESS_ALLOW: "${cidr}" is not a CIDR`);
  }

  return {
    env: env.NODE_ENV,
    production,
    http: {
      port: env.PORT,
      internalPort: env.INTERNAL_PORT,
      host: env.HOST,
      trustProxy: parseTrustProxy(env.TRUST_PROXY),
      publicBaseUrl: env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`,
    },
    dataDir: env.DATA_DIR,
    databaseUrl: env.DATABASE_URL,
    database: {
      appRole: env.DATABASE_APP_ROLE === 'none' ? null : env.DATABASE_APP_ROLE,
      preparedStatements: env.DATABASE_PREPARED_STATEMENTS === 'on',
    },
    eventStore:
      env.EVENT_STORE === 'esdb'
        ? { kind: 'esdb', url: env.EVENTSTORE_URL! }
        : { kind: 'postgres', groupCommit: env.EVENTSTORE_GROUP_COMMIT },
    redisUrl: env.REDIS_URL || undefined,
    kafkaBrokers: env.KAFKA_BROKERS
      ? env.KAFKA_BROKERS.split(',')
          .map((b) => b.trim())
          .filter(Boolean)
      : undefined,
    auditSigningKey: devDefault('AUDIT_SIGNING_KEY', env.AUDIT_SIGNING_KEY, DEV_AUDIT_SIGNING_KEY),
    evidence,
    jwtSecret,
    logLevel: env.LOG_LEVEL,
    projectionWaitMs: env.PROJECTION_WAIT_MS,
    runtime: { laneLagDegradedS: env.LANE_LAG_DEGRADED_S, leaderProbeMs: env.LEADER_PROBE_MS },
    commandRetries: env.COMMAND_RETRIES,
    role: env.ROLE,
    authMode: env.SVC_AUTH_MODE,
    rateLimit: { perMinute: env.RATE_LIMIT_PER_MINUTE, burst: env.RATE_LIMIT_BURST },
    bootstrapAdmin,
    settingsDefaults: {
      defaultModel: env.DEFAULT_LLM_MODEL,
      maxTokensPerExecution: env.DEFAULT_MAX_TOKENS_PER_EXECUTION,
      maxCostUsdPerExecution: env.DEFAULT_MAX_COST_PER_EXECUTION,
      maxThinkingMode: env.DEFAULT_THINKING_MODE,
    },
    secretStoreKey: devDefault('SECRET_STORE_KEY', env.SECRET_STORE_KEY, DEV_SECRET_STORE_KEY),
    bcryptCost: env.BCRYPT_COST,
    llm: {
      openaiApiKey: env.OPENAI_API_KEY || undefined,
      openaiBaseUrl: env.OPENAI_BASE_URL,
      anthropicApiKey: env.ANTHROPIC_API_KEY || undefined,
      anthropicBaseUrl: env.ANTHROPIC_BASE_URL,
      localBaseUrl: env.LOCAL_LLM_BASE_URL,
      localApiKey: env.LOCAL_LLM_API_KEY || undefined,
      turnTimeoutMs: env.AGENT_TURN_TIMEOUT_MS,
    },
    extraction: {
      workers: env.EXTRACTION_WORKERS ?? Math.min(4, Math.max(2, availableParallelism())),
      timeLimitMs: env.EXTRACTION_TIME_LIMIT_MS,
      idleMs: env.EXTRACTION_IDLE_MS,
      maxHeapMb: env.EXTRACTION_WORKER_HEAP_MB,
    },
    compliance: { assessAt: env.COMPLIANCE_ASSESS_AT },
    connectors: {
      egressAllow,
      statementTimeoutMs: env.CONNECTOR_STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: env.CONNECTOR_CONNECT_TIMEOUT_MS,
      rowCap: env.CONNECTOR_ROW_CAP,
      previewRows: env.CONNECTOR_PREVIEW_ROWS,
    },
    evaluation: {
      langfuse:
        env.LANGFUSE_PUBLIC_KEY && env.LANGFUSE_SECRET_KEY && env.LANGFUSE_HOST
          ? {
              host: env.LANGFUSE_HOST.replace(/\/+$/, ''),
              publicKey: env.LANGFUSE_PUBLIC_KEY,
              secretKey: env.LANGFUSE_SECRET_KEY,
            }
          : null,
      snapshotRetryMs: env.EVAL_SNAPSHOT_RETRY_MS,
    },
    approvals: { adminMayDecideOwn: env.APPROVALS_ADMIN_SELF_DECIDE === 'true' },
    tracing: env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? {
          endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
          headers: parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
          serviceName: env.OTEL_SERVICE_NAME,
          sampleRatio: env.OTEL_TRACES_SAMPLER_ARG,
          exportDelayMs: env.OTEL_BSP_SCHEDULE_DELAY,
        }
      : null,
    metrics: { token: env.METRICS_TOKEN || null, tenantLabels: env.METRICS_TENANT_LABELS },
    warnings,
  };
}
