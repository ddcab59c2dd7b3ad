import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import JSZip from 'jszip';
import { extractText, UnreadableFile } from '../../../src/platform/infra/extraction';
import { countTokens } from '../../../src/platform/infra/tokens';
import * as files from '../../support/files';
import { failure } from '../../support/failure';

const W =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"';

/** A valid package whose main document part is `xml`. */
async function docxWithDocument(xml: string): Promise<Buffer> {
  const zip = await JSZip.loadAsync(await files.docxWithParagraphs(['placeholder']));
  zip.file('word/document.xml', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n${xml}`);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** `body` as Word writes a document body: `w:` bound on the root, `mc:` for alternate content. */
const docxWithBody = (body: string) => docxWithDocument(`<w:document ${W}><w:body>${body}</w:body></w:document>`);

const paragraphs = (count: number) =>
  Array.from(
    { length: count },
    (_, i) => `Paragraph ${i}: the operator reported a spill of ${i % 90} bbl at lease ${1000 + i}.`,
  );

describe('text extraction reads only what it keeps', () => {
  describe('Word documents, scanned as a stream', () => {
    it('reads runs, tabs, breaks and character references as Word lays them out', async () => {
      const body =
        '<w:p><w:pPr><w:jc w:val="left"/></w:pPr><w:r><w:rPr><w:b/></w:rPr><w:t>Spill</w:t></w:r><w:r><w:t xml:space="preserve"> report &amp; notice</w:t></w:r></w:p>' +
        '<w:p><w:r><w:t>Volume</w:t></w:r><w:r><w:tab/><w:t>12&#160;bbl &lt;est.&gt; &#x2013; &quot;crude&quot;</w:t><w:br/><w:t>second line</w:t></w:r></w:p>' +
        '<w:p/>' +
        '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Lease</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>42-123</w:t></w:r></w:p></w:tc></w:tr></w:tbl>';
      const { text } = await extractText(await docxWithBody(body));
      expect(text).to.equal(
        'Spill report & notice\n\nVolume\t12\u00a0bbl <est.> \u2013 "crude"\nsecond line\n\nLease\n\n42-123',
      );
    });

    it('leaves out deleted text, field codes and the fallback copy of a text box', async () => {
      const body =
        '<w:p><w:r><w:t>Kept</w:t></w:r><w:del><w:r><w:delText>removed</w:delText></w:r></w:del>' +
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:t>1</w:t></w:r></w:p>' +
        '<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:txbxContent><w:p><w:r><w:t>In the box</w:t></w:r></w:p></w:txbxContent></mc:Choice>' +
        '<mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>In the box</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>' +
        '<!-- a comment with <w:t>not text</w:t> inside --><w:p><w:r><w:t><![CDATA[a < b]]></w:t></w:r></w:p>';
      const { text } = await extractText(await docxWithBody(body));
      expect(text).to.equal('Kept1\n\nIn the box\n\na < b');
    });

    it('follows the namespace prefix the document binds, not the letter w', async () => {
      const strict =
        '<x:document xmlns:x="http://purl.oclc.org/ooxml/wordprocessingml/main" xmlns:w="urn:not-word"><x:body>';
      const body =
        '<x:p><x:r><x:t>Strict prefix</x:t></x:r><w:r><w:t>other vocabulary</w:t></w:r></x:p></x:body></x:document>';
      expect((await extractText(await docxWithDocument(strict + body))).text).to.equal('Strict prefix');
    });

    it('refuses a document whose paragraphs hold no text (422 empty)', async () => {
      const error = await failure(extractText(await docxWithBody('<w:p/><w:p><w:r><w:drawing/></w:r></w:p>')));
      expect(error).to.be.instanceOf(UnreadableFile).and.include({ reason: 'empty' });
    });

    it('stops at the budget: 40,000 paragraphs keep the first 8,000 tokens, flagged truncated', async () => {
      const bytes = await files.docxWithParagraphs(paragraphs(40_000));
      const result = await extractText(bytes);
      expect(result).to.include({ kind: 'docx', truncated: true, tokenEstimate: 8000 });
      expect(result.text.startsWith('Paragraph 0: the operator')).to.equal(true);
      expect(countTokens(result.text)).to.be.at.most(8001);
    });

    it('never reads past the budget: a damaged part after it goes unseen', async () => {
      // An unterminated attribute of over 4 MB after the text: fatal to a reader that gets there.
      const tail = `<w:p><w:r><w:t w:x="${randomBytes(3_200_000).toString('base64')}`;
      const bytes = await docxWithDocument(
        `<w:document ${W}><w:body>${paragraphs(3000)
          .map((p) => `<w:p><w:r><w:t>${p}</w:t></w:r></w:p>`)
          .join('')}${tail}`,
      );
      expect(await extractText(bytes)).to.include({ truncated: true, tokenEstimate: 8000 });
      const full = await failure(extractText(bytes, { charBudget: Number.MAX_SAFE_INTEGER }));
      expect(full).to.be.instanceOf(UnreadableFile).and.include({ reason: 'damaged' });
    });

    it('marks text truncated when the reader stopped early even if what it read fits the limit', async () => {
      const result = await extractText(await files.docxWithParagraphs(paragraphs(200)), { charBudget: 500 });
      expect(result.truncated).to.equal(true);
      expect(result.text.startsWith('Paragraph 0')).to.equal(true);
      expect(result.text).not.to.contain('Paragraph 199');
    });
  });

  describe('workbooks, sheet by sheet', () => {
    const rows = (count: number, from = 0) =>
      Array.from({ length: count }, (_, i) => [
        `42-123-${10000 + from + i}`,
        'Permian',
        (from + i) % 400,
        ((from + i) * 7) % 1000,
        '2026-03',
      ]);

    it('stops inside the first sheet of a large workbook and never opens the second', async () => {
      const bytes = await files.xlsxWithSheets({ Production: rows(15_000), Injection: rows(5000, 15_000) });
      const head = await extractText(bytes);
      expect(head).to.include({ kind: 'xlsx', truncated: true, tokenEstimate: 8000 });
      expect(head.text.startsWith('## Sheet: Production\n42-123-10000\tPermian\t0\t0\t2026-03\n42-123-10001')).to.equal(
        true,
      );
      expect(head.text).not.to.contain('## Sheet: Injection');
      // Speed of the early stop is measured by `npm run bench -- extraction`, not here.
    });

    it('writes dates as ISO dates, formulas as their results, booleans and rich or inline text as text', async () => {
      const bytes = await files.xlsxWithSheets({
        Filings: [
          ['due', 'count', 'ok', 'note'],
          [
            new Date(Date.UTC(2026, 2, 31)),
            { formula: 'SUM(1,2)', result: 3 },
            true,
            { richText: [{ text: 'Form ' }, { font: { bold: true }, text: 'PR' }] },
          ],
          [new Date(Date.UTC(2026, 3, 1, 14, 30)), { formula: 'NOW()' }, false, 'tab\there'],
        ],
      });
      const { text } = await extractText(bytes);
      expect(text).to.equal(
        '## Sheet: Filings\ndue\tcount\tok\tnote\n2026-03-31\t3\ttrue\tForm PR\n2026-04-01 14:30:00\t=NOW()\tfalse\ttab here',
      );
    });

    it('keeps empty cells as empty columns and skips empty rows', async () => {
      const bytes = await files.xlsxWithSheets({ Sparse: [['a', null, 'c'], [], [null, 'b']] });
      expect((await extractText(bytes)).text).to.equal('## Sheet: Sparse\na\t\tc\n\tb');
    });

    it('refuses a workbook without any cell value (422 empty)', async () => {
      const error = await failure(extractText(await files.xlsxWithSheets({ Blank: [] })));
      expect(error).to.be.instanceOf(UnreadableFile).and.include({ reason: 'empty' });
    });
  });

  describe('PDFs, page by page', () => {
    const page = Array.from(
      { length: 45 },
      (_, i) => `Line ${i}: well 42-123-${10000 + i} produced 1250 bbl of oil and 3400 mcf of gas.`,
    );

    it('stops turning pages at the budget and flags the text truncated', async () => {
      const bytes = await files.pdfWithText(Array.from({ length: 120 }, () => page));
      const result = await extractText(bytes);
      expect(result).to.include({ kind: 'pdf', truncated: true, tokenEstimate: 8000 });
      const headOnly = await extractText(bytes, { charBudget: 1000 });
      expect(headOnly.truncated).to.equal(true);
      expect(headOnly.text.split('Line 0:').length - 1, 'pages read with a 1,000-character budget').to.equal(1);
    });

    it('still finds a scan when no page read holds text, even with pages past the first', async () => {
      const bytes = await files.imageOnlyPdf();
      const error = await failure(extractText(bytes, { charBudget: 10 }));
      expect(error).to.be.instanceOf(UnreadableFile).and.include({ reason: 'image_only' });
    });
  });
});
