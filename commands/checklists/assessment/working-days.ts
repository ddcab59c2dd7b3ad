import { formPrDue } from '../../compliance/packs/production';

/**
 * Form PR is due on the last working day of the month after the production month, on the
 * regulator's calendar (weekends and the Texas state holidays its offices close on): the
 * compliance pack's one rule, so a checklist and the dashboard name the same due date.
 */
export { addDays, daysInMonth } from '../../compliance/rules/calendar';

/** Due date of the Form PR for production month `period` (YYYY-MM). */
export const formPrDueDate = (period: string): string => formPrDue(period);

/** The production month before `now` (YYYY-MM): what is being reported this month. */
export function previousMonth(now: Date): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}
