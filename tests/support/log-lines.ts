import type { Readable } from 'node:stream';

/**
 * Calls `onEntry` for every pino JSON line a child process writes to `stream` (lines split
 * across chunks are joined; anything that is not JSON is skipped).
 */
export function readLogLines(stream: Readable, onEntry: (entry: Record<string, unknown>) => void): void {
  let buffer = '';
  stream.on('data', (chunk) => {
    buffer += String(chunk);
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue; // Not a log line.
      }
      onEntry(entry);
    }
  });
}
