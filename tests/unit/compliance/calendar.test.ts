import { expect } from 'chai';
import { addMonths, texasHolidays, workingDayCalendar } from '../../../commands/compliance/rules/calendar';

describe("the regulator's working-day calendar (Texas Government Code §662.003)", () => {
  const calendar = workingDayCalendar();

  it('lists the national and state holidays of a year on their dates, without weekend shifting', () => {
    const h = Object.fromEntries(texasHolidays(2026).map((d) => [d.name, d.date]));
    expect(h).to.include({
      'Martin Luther King, Jr., Day': '2026-01-19',
      "Presidents' Day": '2026-02-16',
      'Memorial Day': '2026-05-25',
      'Labor Day': '2026-09-07',
      'Thanksgiving Day': '2026-11-26',
      'Day after Thanksgiving': '2026-11-27',
    });
    expect(h['Independence Day']).to.equal('2026-07-04'); // a Saturday: Texas observes no Friday instead
    expect(calendar.isWorkingDay('2026-07-03')).to.equal(true);
  });

  it('closes on national holidays and the closed state holidays; skeleton-crew holidays are working days unless configured', () => {
    expect(calendar.closure('2026-11-26')).to.equal('Thanksgiving Day');
    expect(calendar.closure('2026-12-24')).to.equal('Christmas Eve');
    expect(calendar.closure('2026-12-26')).to.equal('Saturday');
    expect(calendar.isWorkingDay('2026-03-02')).to.equal(true); // Texas Independence Day, skeleton crew
    expect(workingDayCalendar({ staffedHolidaysClosed: true }).isWorkingDay('2026-03-02')).to.equal(false);
    expect(workingDayCalendar({ extraClosures: ['2026-03-03'] }).closure('2026-03-03')).to.equal('announced closure');
  });

  it('moves a due date to the previous or next working day', () => {
    expect(calendar.move('2026-11-26', 'next')).to.equal('2026-11-30');
    expect(calendar.move('2026-11-27', 'previous')).to.equal('2026-11-25');
    expect(calendar.lastWorkingDayOfMonth('2027-05')).to.equal('2027-05-28'); // 31 May 2027 is Memorial Day
    expect(calendar.lastWorkingDayOfMonth('2026-12')).to.equal('2026-12-31');
  });

  it('adds months without overflowing short months', () => {
    expect(addMonths('2025-01-31', 1)).to.equal('2025-02-28');
    expect(addMonths('2024-02-29', 12)).to.equal('2025-02-28');
  });
});
