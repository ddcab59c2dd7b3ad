import type Redis from 'ioredis';
import type { Logger } from 'pino';
import type { Cache } from '../../src/platform/infra/cache';

/**
 * The resolve hot path's cache, in process on every API instance (a Redis round trip per
 * agent turn would cost more than the lookup it saves). Entries are per `<tenant, ref>`:
 * the template's serveable versions (active and pre-production with its targeting), and
 * under them the answer per caller keyed by user and sorted roles. Every promotion clears
 * the template's entry here and, when REDIS_URL is set, on every other instance through a
 * pub/sub message; a TTL bounds the damage of a lost message.
 */
export interface ServeableVersion {
  versionId: string;
  versionNumber: number;
  status: 'active' | 'pre_production';
  body: string;
  tokenEstimate: number;
  variablesExpected: string[];
}

export interface TemplateResolution {
  templateId: string;
  active: ServeableVersion | null;
  preProduction: (ServeableVersion & { targetUsers: ReadonlySet<string>; targetRoles: readonly string[] }) | null;
}

export interface Invalidation {
  tenantId: string;
  templateId?: string;
  ref?: string;
}

interface Entry {
  expiresAt: number;
  resolution: TemplateResolution | null;
  callers: Map<string, ServeableVersion | null>;
}

export const INVALIDATION_CHANNEL = 'prompts:resolve-invalidate';
const TTL_MS = 30_000;
const MISS_TTL_MS = 5_000;
const MAX_TEMPLATES = 10_000;
const MAX_CALLERS_PER_TEMPLATE = 5_000;

const keyOf = (tenantId: string, ref: string) => `${tenantId}\u0000${ref}`;

export function callerKey(userId: string | null, roles: readonly string[]): string {
  const sorted = roles.length <= 1 ? roles.join(',') : [...roles].sort().join(',');
  return `${userId ?? ''}\u0000${sorted}`;
}

/** Pre-production first (the caller listed, or one of their roles targeted), then active. */
export function pickVersion(
  resolution: TemplateResolution | null,
  userId: string | null,
  roles: readonly string[],
): ServeableVersion | null {
  if (!resolution) return null;
  const pre = resolution.preProduction;
  if (pre && userId !== null && (pre.targetUsers.has(userId) || roles.some((r) => pre.targetRoles.includes(r))))
    return pre;
  return resolution.active;
}

export class PromptResolveCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byTemplate = new Map<string, string>();
  /** Bumped by every invalidation: a load that began before one must not store its answer. */
  private epoch = 0;
  private publisher: Redis | null = null;
  private subscriber: Redis | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  get currentEpoch(): number {
    return this.epoch;
  }

  /** The cached answer for a caller: `undefined` on a miss (load and `store`), else the version or null. */
  lookup(
    tenantId: string,
    ref: string,
    userId: string | null,
    roles: readonly string[],
  ): ServeableVersion | null | undefined {
    const entry = this.entries.get(keyOf(tenantId, ref));
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(keyOf(tenantId, ref));
      return undefined;
    }
    const caller = callerKey(userId, roles);
    let answer = entry.callers.get(caller);
    if (answer === undefined) {
      answer = pickVersion(entry.resolution, userId, roles);
      if (entry.callers.size >= MAX_CALLERS_PER_TEMPLATE) entry.callers.clear();
      entry.callers.set(caller, answer);
    }
    return answer;
  }

  store(tenantId: string, ref: string, resolution: TemplateResolution | null, loadedAtEpoch: number): void {
    if (loadedAtEpoch !== this.epoch) return;
    const key = keyOf(tenantId, ref);
    if (this.entries.size >= MAX_TEMPLATES && !this.entries.has(key)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, {
      expiresAt: this.now() + (resolution ? TTL_MS : MISS_TTL_MS),
      resolution,
      callers: new Map(),
    });
    if (resolution) this.byTemplate.set(`${tenantId}\u0000${resolution.templateId}`, key);
  }

  /** Clears here and tells the other instances. A publish failure is logged; the TTL bounds staleness. */
  async invalidate(message: Invalidation): Promise<void> {
    this.invalidateLocally(message);
    if (!this.publisher) return;
    try {
      await this.publisher.publish(INVALIDATION_CHANNEL, JSON.stringify(message));
    } catch (err) {
      this.logger.error(
        { err, message },
        'prompt cache invalidation not published; other instances may serve the previous version until their entry expires',
      );
    }
  }

  invalidateLocally(message: Invalidation): void {
    this.epoch++;
    if (message.ref) this.entries.delete(keyOf(message.tenantId, message.ref));
    if (message.templateId) {
      const indexKey = `${message.tenantId}\u0000${message.templateId}`;
      const key = this.byTemplate.get(indexKey);
      if (key) this.entries.delete(key);
      this.byTemplate.delete(indexKey);
    }
  }

  /** Shares invalidations through Redis: `subscriber` is a dedicated connection (subscribe mode). */
  async connect(publisher: Redis, subscriber: Redis): Promise<void> {
    this.publisher = publisher;
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== INVALIDATION_CHANNEL) return;
      try {
        this.invalidateLocally(JSON.parse(text) as Invalidation);
      } catch (err) {
        this.logger.warn({ err }, 'malformed prompt cache invalidation ignored');
      }
    });
    await subscriber.subscribe(INVALIDATION_CHANNEL);
  }

  async disconnect(): Promise<void> {
    const connections = [this.subscriber, this.publisher];
    this.publisher = null;
    this.subscriber = null;
    for (const connection of connections) await connection?.quit().catch(() => undefined);
  }

  clear(): void {
    this.epoch++;
    this.entries.clear();
    this.byTemplate.clear();
  }
}

/**
 * One resolve cache per platform, found from the platform's Cache object (each composition
 * root builds its own), so `resolvePrompt(deps, …)` works with any deps the platform handed out.
 */
const caches = new WeakMap<Cache, PromptResolveCache>();

export function promptResolveCache(deps: { cache: Cache; logger: Logger }): PromptResolveCache {
  let cache = caches.get(deps.cache);
  if (!cache) {
    cache = new PromptResolveCache(deps.logger.child({ component: 'prompt-resolve-cache' }));
    caches.set(deps.cache, cache);
  }
  return cache;
}
