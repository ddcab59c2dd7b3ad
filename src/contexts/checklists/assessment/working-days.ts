/**
 * Form PR is due on the last working day of the month after the production month
 * (DOMAIN.md). Working days here are Monday to Friday; state holidays are not modelled
 * (the seed's deadlines and the compliance packs count the same way).
 */
export function lastWorkingDayOfMonth(year: number, month1: number): string {
  const d = new Date(Date.UTC(year, month1, 0));
  while (d.getUTCDay() === 0 || d.getUTCDay() === 6) d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** Due date of the Form PR for production month `period` (YYYY-MM). */
export function formPrDueDate(period: string): string {
  const [y, m] = period.split('-').map(Number);
  return lastWorkingDayOfMonth(m === 12 ? y + 1 : y, m === 12 ? 1 : m + 1);
}

/** The production month before `now` (YYYY-MM): what is being reported this month. */
export function previousMonth(now: Date): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

export const addDays = (isoDate: string, days: number) => new Date(Date.parse(isoDate) + days * 86_400_000).toISOString().slice(0, 10);

export const daysInMonth = (period: string) => {
  const [y, m] = period.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
};
