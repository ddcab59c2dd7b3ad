/**
 * Domain errors carry their meaning; src/platform/http/errors.ts is the one place that turns them
 * into status codes and bodies. Deciders and handlers never pick a status code.
 */
export abstract class DomainError extends Error {
  abstract readonly kind:
    | 'not_found'
    | 'conflict'
    | 'forbidden'
    | 'invalid'
    | 'validation'
    | 'unauthenticated'
    | 'too_large'
    | 'unsupported_media'
    | 'unavailable'
    | 'rate_limited';
  /** Extra fields merged into the error body (e.g. a conflict's options). */
  readonly body?: Record<string, unknown>;
}

export class NotFound extends DomainError {
  readonly kind = 'not_found';
}

export class Conflict extends DomainError {
  readonly kind = 'conflict';
  constructor(
    message: string,
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export class Forbidden extends DomainError {
  readonly kind = 'forbidden';
}

/** A malformed request or parameter (400). */
export class Invalid extends DomainError {
  readonly kind = 'invalid';
}

export interface FieldIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** The body fails validation (422), with the spec's `{detail: [{loc, msg, type}]}`. */
export class ValidationFailed extends DomainError {
  readonly kind = 'validation';
  constructor(
    readonly issues: FieldIssue[],
    readonly body?: Record<string, unknown>,
  ) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
}

export class Unauthenticated extends DomainError {
  readonly kind = 'unauthenticated';
}

export class PayloadTooLarge extends DomainError {
  readonly kind = 'too_large';
}

export class UnsupportedMediaType extends DomainError {
  readonly kind = 'unsupported_media';
}

export class Unavailable extends DomainError {
  readonly kind = 'unavailable';
}

export class RateLimited extends DomainError {
  readonly kind = 'rate_limited';
}
