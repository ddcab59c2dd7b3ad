import { parentPort } from 'node:worker_threads';
import { UnsupportedMediaType } from '../../domain-errors';
import { UnreadableFile } from './errors';
import { type ExtractionOptions, readText } from './extract';
import type { ExtractionReply, ExtractionRequest } from './extraction-pool';

/** The worker-thread side of the extraction pool: one file at a time, read (not cut to tokens), errors as data. */
async function extract({ id, request }: { id: number; request: ExtractionRequest }): Promise<void> {
  const { bytes, options } = request;
  let reply: ExtractionReply;
  try {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    reply = { ok: true, value: await readText(buffer, options as ExtractionOptions) };
  } catch (error) {
    if (error instanceof UnreadableFile)
      reply = { ok: false, error: { type: 'unreadable', reason: error.reason, message: error.issues[0].msg } };
    else if (error instanceof UnsupportedMediaType)
      reply = { ok: false, error: { type: 'unsupported', message: error.message } };
    else reply = { ok: false, error: { type: 'failed', message: (error as Error)?.message ?? String(error) } };
  }
  parentPort!.postMessage({ id, reply });
}

// extract answers every request, errors included, so nothing it returns can reject.
parentPort?.on('message', (message: { id: number; request: ExtractionRequest }) => void extract(message));
