import { hash } from 'node:crypto';
import { createDrillingPack } from './drilling';
import { createInactiveWellsPack } from './inactive-wells';
import { createOperatorsPack } from './operators';
import type { DomainPack } from './pack';
import { createProductionPack } from './production';
import { createRule32Pack } from './rule-32';
import { rule37Pack } from './rule-37';
import { createWellTestsPack } from './well-tests';
import { TEXAS_RULES, type TexasRules } from '../rules/texas-rules';

/**
 * Bump when a Texas rule's code changes what it decides: the next run then judges every
 * entity again instead of only those near a change.
 */
export const TEXAS_RULES_REVISION = 1;

/** The rules version of the Texas packs on one configuration: the revision and a digest of the configuration. */
export const texasRulesVersion = (rules: TexasRules): string =>
  `texas-${TEXAS_RULES_REVISION}:${hash('md5', JSON.stringify({ ...rules, calendar: rules.calendar.options }))}`;

/** The Texas packs built on one configuration, in dashboard column order; a tenant installs the ones it needs. */
export const texasPacks = (rules: TexasRules = TEXAS_RULES): DomainPack<any>[] => {
  const rulesVersion = texasRulesVersion(rules);
  const changeWindows = [...new Set([30, 7, rules.expiresSoonDays, rules.dueSoonDays, rules.p5BlockedRedDays])];
  return [
    createRule32Pack(rules),
    rule37Pack,
    createProductionPack(rules),
    createDrillingPack(rules),
    createInactiveWellsPack(rules),
    createWellTestsPack(rules),
    createOperatorsPack(rules),
  ].map((pack: DomainPack<any>) => ({ ...pack, rulesVersion, changeWindows }));
};

/** The installed compliance domain packs, in dashboard column order. */
export const DEFAULT_PACKS: DomainPack<any>[] = texasPacks();

/** The pack of a domain among the installed ones (a checklist assesses with its domain's evaluator). */
export const packOf = (domain: string, packs: DomainPack<any>[] = DEFAULT_PACKS): DomainPack<any> | undefined =>
  packs.find((p) => p.domain === domain);

/** GET /compliance/domains: `short_title` falls back to `title`; `applies_to` names the entity labels. */
export const domainList = (packs: DomainPack<any>[]) =>
  packs.map((p) => ({
    domain: p.domain,
    title: p.title,
    short_title: p.short_title ?? p.title,
    applies_to: [...p.appliesTo],
  }));
