export { extractText, headWithinTokens, EXTRACTED_TOKEN_LIMIT, UPLOAD_LIMIT_BYTES } from './extract';
export type { ExtractedText, ExtractionOptions } from './extract';
export { CONTENT_TYPES, sniff } from './file-type';
export type { FileKind } from './file-type';
export { UnreadableFile } from './errors';
export { inspectZip, DEFAULT_ZIP_LIMITS } from './zip-guard';
export type { ZipLimits } from './zip-guard';
export { createExtractionPool } from './extraction-pool';
export type { ExtractionPool, ExtractionPoolOptions } from './extraction-pool';
