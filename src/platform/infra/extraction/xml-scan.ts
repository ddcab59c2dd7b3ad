import { UnreadableFile } from './errors';

/**
 * A push scanner for the XML parts of Office packages, fed decoded text chunk by chunk so
 * a reader can stop as soon as it holds enough text. It reports tags and entity-decoded
 * character data and nothing else: no namespace resolution, no DTD, and no entities beyond
 * the five predefined ones and character references, so entity expansion cannot be abused.
 * Character data may arrive in several pieces; handlers append.
 */
export interface XmlHandler {
  /** `name` is the qualified name (`w:t`); `attributes` the raw rest of the tag. */
  open(name: string, attributes: string, selfClosing: boolean): void;
  close(name: string): void;
  text(text: string): void;
}

// No honest Office part has a single tag, comment or CDATA section this long.
const MAX_MARKUP_CHARS = 4 * 1024 * 1024;

export class XmlScanner {
  private rest = '';

  constructor(private readonly handler: XmlHandler) {}

  write(chunk: string): void {
    const buffer = this.rest + chunk;
    const { handler } = this;
    let at = 0;
    for (;;) {
      const lt = buffer.indexOf('<', at);
      if (lt === -1) {
        // Keep a trailing entity that may be cut in two by the chunk boundary.
        const amp = buffer.lastIndexOf('&');
        const cut = amp >= at && buffer.indexOf(';', amp) === -1 ? amp : buffer.length;
        if (cut > at) handler.text(decodeEntities(buffer.slice(at, cut)));
        at = cut;
        break;
      }
      if (lt > at) handler.text(decodeEntities(buffer.slice(at, lt)));
      const end = this.markup(buffer, lt);
      if (end === -1) {
        at = lt;
        break;
      }
      at = end;
    }
    this.rest = buffer.slice(at);
    if (this.rest.length > MAX_MARKUP_CHARS)
      throw new UnreadableFile('damaged', 'The document is damaged and could not be read.');
  }

  /** Handles the markup at `lt`; returns where the text after it starts, or -1 if incomplete. */
  private markup(buffer: string, lt: number): number {
    const next = buffer.charCodeAt(lt + 1);
    if (next === 0x21 /* ! */) {
      if (buffer.startsWith('<![CDATA[', lt)) {
        const close = buffer.indexOf(']]>', lt + 9);
        if (close === -1) return -1;
        this.handler.text(buffer.slice(lt + 9, close));
        return close + 3;
      }
      if (buffer.startsWith('<!--', lt)) {
        const close = buffer.indexOf('-->', lt + 4);
        return close === -1 ? -1 : close + 3;
      }
      if (buffer.length - lt < 9) return -1; // cannot yet tell CDATA from a declaration
    }
    if (next === 0x3f /* ? */) {
      const close = buffer.indexOf('?>', lt + 2);
      return close === -1 ? -1 : close + 2;
    }
    const close = tagEnd(buffer, lt + 1);
    if (close === -1) return -1;
    if (next === 0x21) return close + 1; // <!DOCTYPE …> and the like: ignored
    if (next === 0x2f /* / */) {
      this.handler.close(buffer.slice(lt + 2, close).trim());
      return close + 1;
    }
    const selfClosing = buffer.charCodeAt(close - 1) === 0x2f;
    const body = buffer.slice(lt + 1, selfClosing ? close - 1 : close);
    const space = body.search(/[\s/]/);
    if (space === -1) this.handler.open(body, '', selfClosing);
    else this.handler.open(body.slice(0, space), body.slice(space), selfClosing);
    return close + 1;
  }
}

/** The `>` that ends a tag, skipping any inside quoted attribute values. */
function tagEnd(buffer: string, from: number): number {
  let quote = 0;
  for (let i = from; i < buffer.length; i++) {
    const c = buffer.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x3e) return i;
  }
  return -1;
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]{1,8}|#[0-9]{1,10}|lt|gt|amp|quot|apos);/g, (_, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref];
    const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
  });
}

export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** The decoded value of attribute `name` in a tag's raw attribute text. */
export function attribute(attributes: string, name: string): string | undefined {
  let pattern = attributePatterns.get(name);
  if (!pattern) {
    pattern = new RegExp(`(?:^|\\s)${name.replace(/[.:]/g, '\\$&')}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`);
    attributePatterns.set(name, pattern);
  }
  const match = pattern.exec(attributes);
  return match ? decodeEntities(match[1] ?? match[2]) : undefined;
}

const attributePatterns = new Map<string, RegExp>();
