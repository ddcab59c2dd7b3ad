import { z } from 'zod';

/**
 * What an uploaded file leaves behind (attachments and project knowledge alike): its name,
 * sniffed type, size and extracted text. The bytes themselves are never evented.
 */
export const ExtractedFileFields = {
  filename: z.string(),
  contentType: z.string(),
  sizeBytes: z.number().int(),
  tokenEstimate: z.number().int(),
  truncated: z.boolean(),
  text: z.string(),
};

export type ExtractedFileData = z.infer<z.ZodObject<typeof ExtractedFileFields>>;

/** Events recorded before payloads were camelCase carry snake_case keys: read them as today's. */
export function upcastExtractedFile(data: unknown): unknown {
  if (!data || typeof data !== 'object' || !('content_type' in data)) return data;
  const { content_type, size_bytes, token_estimate, ...rest } = data as Record<string, unknown>;
  return { ...rest, contentType: content_type, sizeBytes: size_bytes, tokenEstimate: token_estimate };
}

export interface UploadedFile {
  filename: string;
  sizeBytes: number;
  extracted: { contentType: string; text: string; tokenEstimate: number; truncated: boolean };
}

export function extractedFileData(file: UploadedFile): ExtractedFileData {
  return {
    filename: file.filename,
    contentType: file.extracted.contentType,
    sizeBytes: file.sizeBytes,
    tokenEstimate: file.extracted.tokenEstimate,
    truncated: file.extracted.truncated,
    text: file.extracted.text,
  };
}
