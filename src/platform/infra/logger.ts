import pino, { type Logger } from 'pino';

export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { service: 'compliance-platform', ...base },
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
  });
}
