import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';

/** What the Form PR document shows: identification, the month's volumes, dispositions, who approved it. */
export interface FormPrDocument {
  filingId: string;
  operator: { name: string | null; p5Number: string | null };
  /** `Gas well` or `Oil lease` or `Oil well`, its id (gas well id / lease number / API) and name. */
  unit: { kind: string; id: string; name: string | null; apiNumber: string | null };
  field: string | null;
  county: string | null;
  district: string | null;
  period: string;
  figures: Array<{ label: string; value: number | null; unit: string }>;
  allocationMethod: string | null;
  reviewer: string;
  decidedAt: string;
  decision: string;
}

const text = (v: string | null | undefined) => (v === null || v === undefined || v === '' ? '(not on record)' : v);
const volume = (v: number | null) => (v === null ? '(missing)' : v.toLocaleString('en-US'));
// The standard fonts encode WinAnsi only: anything else in a name is written as '?'.
const winAnsi = (s: string) => s.replace(/[^\x20-\x7e\u00a0-\u00ff]/g, '?');

/** The filed Form PR as a one-page PDF (US Letter). Deterministic for the same input: no dates of its own. */
export async function renderFormPr(doc: FormPrDocument): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle(`Form PR ${doc.period} ${doc.unit.id}`);
  pdf.setSubject(`Monthly production report, filing ${doc.filingId}`);
  pdf.setProducer('compliance-platform');
  pdf.setCreator('compliance-platform');
  const epoch = new Date(doc.decidedAt);
  pdf.setCreationDate(epoch);
  pdf.setModificationDate(epoch);
  const page = pdf.addPage([612, 792]);
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  let y = 740;
  const line = (label: string, value: string, options: { size?: number; gap?: number } = {}) => {
    const size = options.size ?? 10;
    page.drawText(winAnsi(label), { x: 50, y, size, font: bold });
    page.drawText(winAnsi(value), { x: 230, y, size, font: regular });
    y -= options.gap ?? 16;
  };
  const heading = (title: string) => {
    y -= 6;
    page.drawText(winAnsi(title), { x: 50, y, size: 12, font: bold, color: rgb(0.1, 0.2, 0.45) });
    page.drawLine({ start: { x: 50, y: y - 4 }, end: { x: 562, y: y - 4 }, thickness: 0.5, color: rgb(0.6, 0.6, 0.6) });
    y -= 22;
  };

  page.drawText('Railroad Commission of Texas', { x: 50, y, size: 10, font: regular });
  y -= 22;
  page.drawText('Form PR - Monthly Production Report', { x: 50, y, size: 16, font: bold });
  y -= 28;
  heading('Operator and reporting unit');
  line('Operator', text(doc.operator.name));
  line('Operator P-5 number', text(doc.operator.p5Number));
  line(`${doc.unit.kind} id`, doc.unit.id);
  line(`${doc.unit.kind} name`, text(doc.unit.name));
  if (doc.unit.apiNumber) line('API number', doc.unit.apiNumber);
  line('Field', text(doc.field));
  line('County', text(doc.county));
  line('District', text(doc.district));
  line('Production month', doc.period);
  if (doc.allocationMethod !== null || doc.unit.kind === 'Oil lease')
    line('Allocation method', text(doc.allocationMethod));
  heading('Volumes');
  const dispositions = doc.figures.filter((f) => /code \d{2}/.test(f.label));
  for (const f of doc.figures.filter((f) => !dispositions.includes(f))) line(f.label, `${volume(f.value)} ${f.unit}`);
  heading('Gas disposition by code');
  if (dispositions.length === 0) line('Dispositions', '(none reported)');
  for (const f of dispositions) line(f.label, `${volume(f.value)} ${f.unit}`);
  heading('Review');
  line('Reviewed by', doc.reviewer);
  line('Decision', doc.decision === 'modified' ? 'approved with modifications' : doc.decision);
  line('Date', doc.decidedAt.slice(0, 10));
  y -= 20;
  page.drawText(
    winAnsi(
      `Filing ${doc.filingId}. The signed evidence package (manifest.json, manifest.jws) lists this document's SHA-256.`,
    ),
    { x: 50, y, size: 8, font: regular, color: rgb(0.35, 0.35, 0.35) },
  );
  return pdf.save({ useObjectStreams: false });
}
