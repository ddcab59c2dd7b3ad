import { z } from 'zod';

/**
 * What an uploaded file leaves behind (attachments and project knowledge alike): its name,
 * sniffed type, size and extracted text. The bytes themselves are never evented.
 */
export const ExtractedFileFields = {
  filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  token_estimate: z.number().int(),
  truncated: z.boolean(),
  text: z.string(),
};

export type ExtractedFileData = z.infer<z.ZodObject<typeof ExtractedFileFields>>;

export interface UploadedFile {
  filename: string;
  sizeBytes: number;
  extracted: { contentType: string; text: string; tokenEstimate: number; truncated: boolean };
}

export function extractedFileData(file: UploadedFile): ExtractedFileData {
  return {
    filename: file.filename,
    content_type: file.extracted.contentType,
    size_bytes: file.sizeBytes,
    token_estimate: file.extracted.tokenEstimate,
    truncated: file.extracted.truncated,
    text: file.extracted.text,
  };
}
