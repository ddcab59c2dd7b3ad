import busboy from 'busboy';
import type { Request, Response } from 'express';
import { PayloadTooLarge, ValidationFailed } from '../domain-errors';

export interface UploadedFile {
  /** As the client named it (basename, control characters removed); a label, never a type. */
  filename: string;
  /** The client's claim; stored nowhere and never trusted for the type. */
  declaredType: string;
  bytes: Buffer;
}

export interface UploadOptions {
  field?: string;
  maxBytes: number;
}

// Room for the multipart boundaries, part headers and a few small text fields.
const ENVELOPE_BYTES = 64 * 1024;

const missingFile = (field: string) =>
  new ValidationFailed([
    {
      loc: ['body', field],
      msg: `expected a multipart/form-data body with a file part named "${field}"`,
      type: 'missing',
    },
  ]);

export function tooLarge(maxBytes: number): PayloadTooLarge {
  return new PayloadTooLarge(`The file exceeds the ${Math.round(maxBytes / (1024 * 1024))} MB limit`);
}

/**
 * Reads the one file part of a multipart upload, streamed through busboy, holding at most
 * `maxBytes`. Past the limit nothing more is kept: the request is unpiped, the 413 goes out
 * at once and the rest of the body is drained and discarded up to a bound (see `abandon`). A declared Content-Length beyond the limit is refused without
 * keeping a byte; chunked bodies are counted as they arrive.
 */
export function readUpload(req: Request, res: Response, options: UploadOptions): Promise<UploadedFile> {
  const field = options.field ?? 'file';
  const { maxBytes } = options;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes + ENVELOPE_BYTES) {
    abandon(req, res, 0, declared);
    return Promise.reject(tooLarge(maxBytes));
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: 1, fileSize: maxBytes, fields: 20, fieldSize: 16 * 1024, parts: 40 },
    });
  } catch {
    return Promise.reject(missingFile(field));
  }
  return new Promise<UploadedFile>((resolve, reject) => {
    let settled = false;
    let file: UploadedFile | null = null;
    let received = 0;
    const fail = (error: Error, stopReading: boolean) => {
      if (settled) return;
      settled = true;
      req.off('data', countBody);
      req.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => undefined);
      if (stopReading) abandon(req, res, received);
      else req.resume();
      reject(error);
    };
    // Counts every body byte, so a chunked request cannot stream past the limit in fields.
    const countBody = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes + ENVELOPE_BYTES) fail(tooLarge(maxBytes), true);
    };
    req.on('data', countBody);

    parser.on('file', (name, stream, info) => {
      if (name !== field || file) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const current: UploadedFile = {
        filename: cleanFilename(info.filename),
        declaredType: info.mimeType,
        bytes: Buffer.alloc(0),
      };
      file = current;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        chunks.push(chunk);
      });
      stream.on('limit', () => {
        chunks.length = 0;
        fail(tooLarge(maxBytes), true);
      });
      stream.on('end', () => {
        current.bytes = Buffer.concat(chunks, size);
      });
    });
    parser.on('error', () => fail(missingFile(field), false));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      req.off('data', countBody);
      if (!file) reject(missingFile(field));
      else resolve(file);
    });
    req.on('aborted', () =>
      fail(new ValidationFailed([{ loc: ['body', field], msg: 'the upload was interrupted', type: 'aborted' }]), false),
    );
    req.pipe(parser);
  });
}

/** How much of an over-limit body is read and discarded so the client can read its 413. */
export const DRAIN_BOUND_BYTES = 32 * 1024 * 1024;
const DRAIN_TIME_MS = 30_000;

/**
 * An over-limit body is refused in a way every client can read. The 413 goes out at once,
 * but the connection is not closed under a client that is still writing (Node's fetch and
 * browsers then see EPIPE or a reset, never the answer): the rest of the body is read and
 * discarded, holding nothing, up to DRAIN_BOUND_BYTES in all and DRAIN_TIME_MS, after which
 * the connection is kept for the next request. A body declared or found larger than the
 * bound is not worth reading to be polite: it is answered with `Connection: close` and the
 * socket is cut shortly after.
 */
export function abandon(req: Request, res: Response, alreadyRead = 0, declared = NaN): void {
  const cut = () => {
    const timer = setTimeout(() => req.socket.destroy(), 1000);
    timer.unref();
    req.socket.once('close', () => clearTimeout(timer));
  };
  if (Number.isFinite(declared) && declared > DRAIN_BOUND_BYTES) {
    res.setHeader('Connection', 'close');
    res.once('finish', () => (req.complete ? undefined : cut()));
    req.resume();
    return;
  }
  let read = alreadyRead;
  const timer = setTimeout(() => stop(true), DRAIN_TIME_MS);
  timer.unref();
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read > DRAIN_BOUND_BYTES) stop(true);
  };
  const stop = (tooMuch: boolean) => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', done);
    if (!tooMuch) return;
    if (res.headersSent) cut();
    else {
      res.setHeader('Connection', 'close');
      res.once('finish', cut);
    }
  };
  const done = () => stop(false);
  req.on('data', onData);
  req.once('end', done);
  req.resume();
}

// eslint-disable-next-line no-control-regex -- the pattern names the characters to remove
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** A client's file name is shown and logged: its control characters are removed. */
export const withoutControlCharacters = (text: string) => text.replace(CONTROL_CHARACTERS, '');

function cleanFilename(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = withoutControlCharacters(base).trim().slice(0, 255);
  return cleaned || 'upload';
}
