import { expect } from 'chai';
import JSZip from 'jszip';
import {
  extractText,
  headWithinTokens,
  inspectZip,
  sniff,
  UnreadableFile,
} from '../../../src/platform/infra/extraction';
import { countTokens } from '../../../src/platform/infra/tokens';
import { UnsupportedMediaType } from '../../../src/platform/domain-errors';
import * as files from '../../support/files';
import { failure } from '../../support/failure';

describe('text extraction', () => {
  it('reads every page of a text PDF', async () => {
    const result = await extractText(
      await files.pdfWithText([['Form PR for March 2026', 'Lease 12345'], ['Second page: Permian basin']]),
    );
    expect(result).to.include({ kind: 'pdf', contentType: 'application/pdf', truncated: false });
    expect(result.text).to.contain('Form PR for March 2026').and.contain('Second page: Permian basin');
    expect(result.tokenEstimate).to.equal(countTokens(result.text));
  });

  it('refuses a password-protected PDF, an image-only PDF and a blank PDF with distinct reasons', async () => {
    expect(await failure(extractText(files.encryptedPdf())))
      .to.be.instanceOf(UnreadableFile)
      .and.include({ reason: 'encrypted' });
    expect(await failure(extractText(await files.imageOnlyPdf())))
      .to.be.instanceOf(UnreadableFile)
      .and.include({ reason: 'image_only' });
    expect(await failure(extractText(await files.pdfWithText([[]]))))
      .to.be.instanceOf(UnreadableFile)
      .and.include({ reason: 'empty' });
  });

  it('reads both sheets of a workbook with their names', async () => {
    const xlsx = await files.xlsxWithSheets({
      Production: [
        ['well', 'oil_bbl'],
        ['A-1', 120],
      ],
      Injection: [
        ['well', 'water_bbl'],
        ['I-7', 900],
      ],
    });
    const { kind, text } = await extractText(xlsx);
    expect(kind).to.equal('xlsx');
    expect(text)
      .to.contain('## Sheet: Production\nwell\toil_bbl\nA-1\t120')
      .and.contain('## Sheet: Injection\nwell\twater_bbl\nI-7\t900');
  });

  it('reads a Word document paragraph by paragraph', async () => {
    const { kind, text } = await extractText(await files.docxWithParagraphs(['Spill report', 'Volume: 12 bbl']));
    expect(kind).to.equal('docx');
    expect(text).to.equal('Spill report\n\nVolume: 12 bbl');
  });

  it('tells CSV from plain text by its structure, not by its name', async () => {
    expect(
      (
        await sniff(
          files.csvOf([
            ['well', 'oil'],
            ['A-1', 1],
            ['A-2', 2],
          ]),
        )
      ).kind,
    ).to.equal('csv');
    expect((await sniff(Buffer.from('Dear inspector,\nthe well was shut in.\nRegards'))).kind).to.equal('txt');
  });

  it('refuses binary content, legacy Office files and plain zips as unsupported types', async () => {
    expect(await failure(extractText(files.grayscalePng(4, 4)))).to.be.instanceOf(UnsupportedMediaType);
    const legacy = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(512)]);
    expect(await failure(extractText(legacy))).to.be.instanceOf(UnsupportedMediaType);
    const zip = new JSZip();
    zip.file('notes.txt', 'hello');
    expect(await failure(extractText(await zip.generateAsync({ type: 'nodebuffer' })))).to.be.instanceOf(
      UnsupportedMediaType,
    );
  });

  it('reports an encrypted Office package as password-protected', async () => {
    const encrypted = Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(64),
      Buffer.from('EncryptedPackage', 'utf16le'),
    ]);
    expect(await failure(extractText(encrypted)))
      .to.be.instanceOf(UnreadableFile)
      .and.include({ reason: 'encrypted' });
  });

  it('refuses empty and whitespace-only files', async () => {
    expect(await failure(extractText(Buffer.alloc(0)))).to.include({ reason: 'empty' });
    expect(await failure(extractText(Buffer.from('  \n\n\t ')))).to.include({ reason: 'empty' });
  });

  it('keeps the head of a long text within the token limit and flags it truncated', async () => {
    const result = await extractText(files.textOfSize(2_000_000), { maxTokens: 8000 });
    expect(result).to.include({ truncated: true, tokenEstimate: 8000 });
    expect(countTokens(result.text)).to.be.at.most(8001);
    expect(result.text.startsWith('Well 42-123-45678')).to.equal(true);
  });

  it('counts special-token spellings in user text as ordinary text', () => {
    expect(headWithinTokens('see <|endoftext|> here', 100).truncated).to.equal(false);
  });

  describe('zip guard (before any Office reader runs)', () => {
    it('refuses a zip bomb dressed as a .docx', async () => {
      expect(await failure(extractText(await files.zipBombDocx(20))))
        .to.be.instanceOf(UnreadableFile)
        .and.include({ reason: 'unsafe_archive' });
    });

    it('refuses archives with too many entries or too much inflated data', async () => {
      const many = new JSZip();
      for (let i = 0; i < 30; i++) many.file(`word/part${i}.xml`, 'x');
      const bytes = await many.generateAsync({ type: 'nodebuffer' });
      expect(
        await failure(
          inspectZip(bytes, {
            maxEntries: 10,
            maxTotalUncompressedBytes: 1e9,
            maxCompressionRatio: 1e9,
            ratioFloorBytes: 0,
          }),
        ),
      ).to.include({ reason: 'unsafe_archive' });
      expect(
        await failure(
          inspectZip(bytes, {
            maxEntries: 100,
            maxTotalUncompressedBytes: 20,
            maxCompressionRatio: 1e9,
            ratioFloorBytes: 0,
          }),
        ),
      ).to.include({ reason: 'unsafe_archive' });
    });

    it('lists a well-formed package', async () => {
      const listing = await inspectZip(await files.docxWithParagraphs(['x']));
      expect(listing.names).to.include.members(['[Content_Types].xml', 'word/document.xml']);
    });
  });
});
