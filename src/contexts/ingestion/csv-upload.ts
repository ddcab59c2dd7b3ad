import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Request, Response } from 'express';
import { PayloadTooLarge, ValidationFailed } from '../../platform/domain-errors';
import { withoutControlCharacters } from '../../platform/http/multipart';

/** An operator CSV is ≈10 MB per 100,000 wells; 64 MB leaves room for wide exports. */
export const CSV_MAX_BYTES = 64 * 1024 * 1024;

const missingFile = () =>
  new ValidationFailed([
    {
      loc: ['body', 'file'],
      msg: 'expected a multipart/form-data body with a CSV file part named "file"',
      type: 'missing',
    },
  ]);

/**
 * Hands the `file` part of a multipart upload to `consume` as a stream while it arrives
 * (never buffered whole); past `maxBytes` the stream fails with 413 and the rest of the
 * body is discarded.
 */
export function withCsvUpload<T>(
  req: Request,
  res: Response,
  consume: (file: { filename: string; stream: Readable }) => Promise<T>,
  maxBytes = CSV_MAX_BYTES,
): Promise<T> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes, fields: 10, parts: 20 } });
  } catch {
    return Promise.reject(missingFile());
  }
  return new Promise<T>((resolve, reject) => {
    let started = false;
    const stopReading = () => {
      req.unpipe(parser);
      res.setHeader('Connection', 'close');
      req.resume();
    };
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || started) {
        stream.resume();
        return;
      }
      started = true;
      stream.on('limit', () => {
        stopReading();
        stream.destroy(new PayloadTooLarge(`The file exceeds the ${Math.round(maxBytes / (1024 * 1024))} MB limit`));
      });
      const filename =
        withoutControlCharacters((info.filename ?? 'upload.csv').split(/[\\/]/).pop()!).slice(0, 255) || 'upload.csv';
      consume({ filename, stream }).then(resolve, (error) => {
        stopReading();
        reject(error);
      });
    });
    parser.on('error', () => {
      if (!started) reject(missingFile());
    });
    parser.on('close', () => {
      if (!started) reject(missingFile());
    });
    req.on('aborted', () =>
      parser.destroy(
        new ValidationFailed([{ loc: ['body', 'file'], msg: 'the upload was interrupted', type: 'aborted' }]),
      ),
    );
    req.pipe(parser);
  });
}
