import pino, { type DestinationStream, type Logger } from 'pino';
import { logTraceFields, mergeLogFields } from '../observability/tracing';

/** `destination`: standard output unless given (a test reads the lines back). */
export function createLogger(
  level: string,
  base: Record<string, unknown> = {},
  destination?: DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'compliance-platform', ...base },
    // The active span's trace_id and span_id on every line written during a request or a
    // reaction, when tracing is on (docs/operations.md#tracing).
    mixin: logTraceFields,
    mixinMergeStrategy: mergeLogFields,
    // Secrets never reach the log, whatever a caller passes.
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.password',
        '*.token',
        '*.credential',
        '*.private_key',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
