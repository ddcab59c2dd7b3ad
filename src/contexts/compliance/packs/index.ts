import { drillingPack } from './drilling';
import { inactiveWellsPack } from './inactive-wells';
import type { DomainPack } from './pack';
import { productionPack } from './production';
import { rule32Pack } from './rule-32';
import { rule37Pack } from './rule-37';

/** The installed compliance domain packs, in dashboard column order. */
export const DEFAULT_PACKS: DomainPack<any>[] = [rule32Pack, rule37Pack, productionPack, drillingPack, inactiveWellsPack];

/** GET /compliance/domains: `short_title` falls back to `title` (spec 2 §4). */
export const domainList = (packs: DomainPack<any>[]) => packs.map((p) => ({ domain: p.domain, title: p.title, short_title: p.short_title ?? p.title }));
