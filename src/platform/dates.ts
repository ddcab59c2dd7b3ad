/** Date arithmetic on ISO dates (`YYYY-MM-DD`) and months (`YYYY-MM`), in UTC. */

export const addDays = (isoDate: string, days: number) =>
  new Date(Date.parse(isoDate.slice(0, 10)) + days * 86_400_000).toISOString().slice(0, 10);

export function lastDayOfMonth(month: string): string {
  const [y, m] = month.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

export function nextMonth(month: string): string {
  const [y, m] = month.split('-').map(Number);
  return new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 7);
}

export function addMonths(isoDate: string, months: number): string {
  const [y, m, d] = isoDate.slice(0, 10).split('-').map(Number);
  const last = new Date(Date.UTC(y, m - 1 + months + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m - 1 + months, Math.min(d, last))).toISOString().slice(0, 10);
}

export const daysInMonth = (month: string) => Number(lastDayOfMonth(month).slice(8, 10));
