/**
 * Whether an error means the database (or another dependency reached over a socket) is gone,
 * not that the request was wrong: the API contract reserves 503 for an unavailable dependency, so a
 * command that loses its database answers 503 and the client retries after a pause.
 * - socket errors: refused, reset, timed out, unreachable, the name not resolving;
 * - PostgreSQL class 08 (connection exception), 57P01–57P03 (shut down, crash, starting up)
 *   and 53300 (too many connections);
 * - pg's "Connection terminated" without a code and knex's pool timeout (no connection to lend).
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const POSTGRES_CODES = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;
const MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Timeout acquiring a connection|Connection ended unexpectedly)/;

export function isConnectionLoss(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || POSTGRES_CODES.test(code))) return true;
  if (name === 'KnexTimeoutError') return true;
  if (typeof message === 'string' && MESSAGES.test(message)) return true;
  // AggregateError (a host with several addresses, every one refused) carries its causes.
  const errors = (error as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every(isConnectionLoss);
}
