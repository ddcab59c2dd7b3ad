import { UnsupportedMediaType, ValidationFailed } from '../../domain-errors';

/**
 * Why an uploaded file yields no text (422 with a human-readable detail). It
 * is a validation failure of the `file` part, so the body keeps the platform's 422 shape
 * `{detail: [{loc: ['body', 'file'], msg, type}]}` with `msg` written for people.
 */
export class UnreadableFile extends ValidationFailed {
  constructor(
    readonly reason: 'empty' | 'encrypted' | 'image_only' | 'damaged' | 'unsafe_archive' | 'timeout',
    message: string,
  ) {
    super([{ loc: ['body', 'file'], msg: message, type: `file.${reason}` }]);
  }
}

export const ACCEPTED_TYPES_TEXT = 'PDF, CSV, XLSX, DOCX or TXT';

export function unsupportedType(what: string): UnsupportedMediaType {
  return new UnsupportedMediaType(`Unsupported file type (${what}); accepted: ${ACCEPTED_TYPES_TEXT}`);
}
