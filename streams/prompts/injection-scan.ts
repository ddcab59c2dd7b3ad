import { positionsIn } from './template-syntax';

/**
 * The injection scan of a prompt body. Hidden
 * Unicode and exfiltration URLs fail the validation (nobody writes them by accident into a
 * system prompt); instruction-override phrases and role markers are warnings, since a
 * prompt may legitimately quote them (e.g. to tell the model to resist them).
 */
export interface Finding {
  kind: 'instruction_override' | 'hidden_unicode' | 'role_marker' | 'exfiltration_url';
  message: string;
  line: number;
  column: number;
  excerpt: string;
}

export interface InjectionScan {
  status: 'clean' | 'warn' | 'fail';
  findings: Finding[];
}

export const MAX_FINDINGS = 100;

const OVERRIDES: RegExp[] = [
  /\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+|your\s+)?(previous|prior|above|earlier|preceding|system)\s+(instructions?|prompts?|rules|messages?|directions)\b/gi,
  /\byou\s+are\s+now\s+(in\s+)?(developer|dan|jailbreak|unrestricted|god)\s*(mode)?\b/gi,
  /\b(reveal|print|show|repeat|output)\s+(your|the)\s+(system\s+prompt|hidden\s+instructions|initial\s+instructions)\b/gi,
  /\bnew\s+instructions\s*:/gi,
  /\bdo\s+anything\s+now\b/gi,
];

// Zero-width characters, bidirectional controls, the BOM and Unicode tag characters.
const HIDDEN = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u00AD]|\uDB40[\uDC00-\uDC7F]/g;

const ROLE_MARKERS: RegExp[] = [
  /<\|\s*(im_start|im_end|system|assistant|user|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\s*\|>/gi,
  /\[\/?INST\]|<<\/?SYS>>/g,
  /^\s*(system|assistant)\s*:/gim,
  /^#{2,}\s*(system|instruction)s?\b/gim,
];

// Markdown images load without a click; a URL carrying template output or known capture hosts leaks data.
const EXFILTRATION: Array<{ pattern: RegExp; message: string }> = [
  {
    pattern: /!\[[^\]]*\]\(\s*https?:\/\/[^)\s]+\)/gi,
    message: 'markdown image with a remote URL (loads without a click)',
  },
  { pattern: /https?:\/\/[^\s"'<>)]*\{\{[^}]*\}\}[^\s"'<>)]*/gi, message: 'URL built from template variables' },
  {
    pattern:
      /https?:\/\/[^\s"'<>)]*(webhook\.site|requestbin|pipedream\.net|ngrok(-free)?\.(io|app)|burpcollaborator|interact\.sh|oast\.(fun|pro|me|site))[^\s"'<>)]*/gi,
    message: 'URL of a request-capture service',
  },
  {
    pattern: /https?:\/\/[^\s"'<>)]*[?&][^\s"'<>)=]*=\s*(\{\{|\$\{|%s)/gi,
    message: 'URL with a query parameter filled at run time',
  },
];

function excerpt(text: string, index: number, length: number): string {
  return text.slice(Math.max(0, index - 10), Math.min(text.length, index + length + 10)).replace(/\s+/g, ' ');
}

function collect(
  text: string,
  positionOf: ReturnType<typeof positionsIn>,
  pattern: RegExp,
  make: (match: RegExpExecArray) => Omit<Finding, 'line' | 'column' | 'excerpt'>,
  into: Finding[],
): void {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    into.push({ ...make(match), ...positionOf(match.index), excerpt: excerpt(text, match.index, match[0].length) });
    if (match[0].length === 0) pattern.lastIndex++;
  }
}

export function scanForInjection(text: string): InjectionScan {
  const findings: Finding[] = [];
  const at = positionsIn(text);
  for (const pattern of OVERRIDES)
    collect(
      text,
      at,
      pattern,
      (m) => ({ kind: 'instruction_override', message: `instruction-override phrase "${m[0]}"` }),
      findings,
    );
  collect(
    text,
    at,
    HIDDEN,
    (m) => ({
      kind: 'hidden_unicode',
      message: `hidden character U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`,
    }),
    findings,
  );
  for (const pattern of ROLE_MARKERS)
    collect(text, at, pattern, (m) => ({ kind: 'role_marker', message: `role marker "${m[0].trim()}"` }), findings);
  for (const { pattern, message } of EXFILTRATION)
    collect(text, at, pattern, () => ({ kind: 'exfiltration_url', message }), findings);
  findings.sort((a, b) => a.line - b.line || a.column - b.column);
  const fails = findings.some((f) => f.kind === 'hidden_unicode' || f.kind === 'exfiltration_url');
  // The first findings say enough; a body stuffed with hidden characters must not bloat every event.
  return { status: fails ? 'fail' : findings.length > 0 ? 'warn' : 'clean', findings: findings.slice(0, MAX_FINDINGS) };
}
