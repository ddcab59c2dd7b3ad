import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Where a connector may connect: the host is resolved once, EVERY address it
 * resolves to must be a public unicast address (or inside CONNECTOR_EGRESS_ALLOW), and the
 * engine then connects to the exact address that was checked — never the name again, so a
 * DNS answer that changes between the check and the connect (rebinding) gains nothing.
 */

export type EgressVerdict =
  | { ok: true; host: string; address: string; addresses: string[] }
  | { ok: false; error: 'egress_denied'; host: string; addresses: string[]; reason: string }
  | { ok: false; error: 'resolution_failed'; host: string; addresses: []; reason: string };

export interface EgressPolicy {
  /** CIDRs admitted even though private (tests, private deployments). */
  allow: [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

export function egressPolicy(allowCidrs: readonly string[]): EgressPolicy {
  return { allow: allowCidrs.map((cidr) => ipaddr.parseCIDR(cidr)) };
}

/** The IPv4 address an IPv6 transition form carries (mapped, NAT64 well-known prefix, 6to4). */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  const range = address.range();
  if (range === 'ipv4Mapped') return address.toIPv4Address();
  if (range === 'rfc6052') return new ipaddr.IPv4(bytes.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  return null;
}

function inAllowList(address: ipaddr.IPv4 | ipaddr.IPv6, policy: EgressPolicy): boolean {
  return policy.allow.some(([net, bits]) => net.kind() === address.kind() && address.match([net, bits] as never));
}

/** Why an address is refused, or null when it is a public unicast address (or allowed). */
export function refusalOf(literal: string, policy: EgressPolicy): string | null {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns IPv4-mapped IPv6 into IPv4 and accepts the numeric IPv4 forms
    // (2130706433, 0x7f.0.0.1, 127.1) that resolvers also accept.
    address = ipaddr.process(literal);
  } catch {
    return `${literal} is not an IP address`;
  }
  if (inAllowList(address, policy)) return null;
  const range = address.range();
  if (address.kind() === 'ipv6') {
    const inner = embeddedIPv4(address as ipaddr.IPv6);
    if (inner) {
      if (inAllowList(inner, policy)) return null;
      const innerRange = inner.range();
      return innerRange === 'unicast'
        ? `${address.toString()} is a ${range} form; connect to ${inner.toString()} directly`
        : `${address.toString()} embeds ${inner.toString()} (${innerRange})`;
    }
  }
  if (range === 'unicast') return null;
  return `${address.toString()} is in a denied range (${range})`;
}

export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Resolve once, check every address, and name the one to connect to. */
export async function checkEgress(
  host: string,
  policy: EgressPolicy,
  resolve: Resolver = systemResolver,
): Promise<EgressVerdict> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (ipaddr.isValid(bare)) addresses = [ipaddr.process(bare).toString()];
  else {
    try {
      addresses = await resolve(bare);
    } catch (error) {
      return {
        ok: false,
        error: 'resolution_failed',
        host,
        addresses: [],
        reason: `${host} does not resolve (${(error as { code?: string }).code ?? 'lookup failed'})`,
      };
    }
    if (addresses.length === 0)
      return { ok: false, error: 'resolution_failed', host, addresses: [], reason: `${host} resolves to no address` };
  }
  for (const address of addresses) {
    const refusal = refusalOf(address, policy);
    if (refusal) return { ok: false, error: 'egress_denied', host, addresses, reason: refusal };
  }
  return { ok: true, host, address: ipaddr.process(addresses[0]).toString(), addresses };
}
