import { request } from 'node:http';
import { randomInt } from 'node:crypto';

/**
 * A GET sent from a chosen loopback address (Linux answers on all of 127.0.0.0/8), so a
 * test owns its client address and its bucket: no other test, and no earlier run against
 * a shared Redis, spends from it.
 */
export function randomLoopbackAddress(): string {
  return `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

export function getFrom(
  url: string,
  localAddress: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', localAddress, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A documentation-range IPv6 address (RFC 3849), random enough to be this test's own. */
export function randomClientAddress(): string {
  const group = () => randomInt(0, 0x10000).toString(16);
  return `2001:db8:${group()}:${group()}::${group()}`;
}
