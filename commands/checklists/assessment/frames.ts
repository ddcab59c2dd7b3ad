import type { AssessmentFrame } from '../../../streams/checklists/assessment';

type Cell = string | number | boolean | null;
export type Severity = 'info' | 'warning' | 'error';

/** Collects one item's frames in the order they are streamed. */
export class ItemFrames {
  readonly frames: AssessmentFrame[] = [];
  constructor(
    readonly assessmentId: string,
    readonly itemIndex: number,
  ) {}

  table(columns: string[], rows: Record<string, Cell>[]): void {
    this.frames.push({
      type: 'AssessmentDataTableUpdated',
      data: { assessmentId: this.assessmentId, itemIndex: this.itemIndex, columns, rows, totalRows: rows.length },
    });
  }

  field(fieldName: string, fieldValue: Cell, confidence: number, source: string): void {
    const bounded = Math.max(0, Math.min(1, Math.round(confidence * 100) / 100));
    this.frames.push({
      type: 'AssessmentFormFieldUpdated',
      data: {
        assessmentId: this.assessmentId,
        itemIndex: this.itemIndex,
        fieldName,
        fieldValue,
        confidence: bounded,
        source,
      },
    });
  }

  check(checkName: string, passed: boolean, message: string, severity: Severity = passed ? 'info' : 'error'): void {
    this.frames.push({
      type: 'AssessmentValidationRecorded',
      data: { assessmentId: this.assessmentId, itemIndex: this.itemIndex, checkName, passed, message, severity },
    });
  }

  get failed(): number {
    return this.frames.filter(
      (f) => f.type === 'AssessmentValidationRecorded' && !f.data.passed && f.data.severity === 'error',
    ).length;
  }

  get checks(): { passed: number; failed: number } {
    const checks = this.frames.filter((f) => f.type === 'AssessmentValidationRecorded');
    const failed = checks.filter((f) => f.type === 'AssessmentValidationRecorded' && !f.data.passed).length;
    return { passed: checks.length - failed, failed };
  }
}
