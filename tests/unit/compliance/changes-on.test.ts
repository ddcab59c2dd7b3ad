import { expect } from 'chai';
import { changesOn } from '../../../commands/compliance/changes-on';
import { verdict } from '../../../commands/compliance/packs/pack';
import { workingDayCalendar } from '../../../commands/compliance/rules/calendar';

/** The day a verdict stops holding, found by asking its evaluator (`changes_on`). */
describe('changes_on: when a verdict changes without new facts', () => {
  const due = '2026-12-15';
  const byDueDate = (day: string) => verdict(day, { color: 'green', reason: 'r', dueDate: due });

  it('a due date: the day its 30-day window opens, then its 7-day one, then the day after it', () => {
    expect(changesOn(byDueDate, '2026-11-01', byDueDate('2026-11-01'))).to.equal('2026-11-15');
    expect(changesOn(byDueDate, '2026-11-20', byDueDate('2026-11-20'))).to.equal('2026-12-08');
    expect(changesOn(byDueDate, '2026-12-10', byDueDate('2026-12-10'))).to.equal('2026-12-16');
  });

  it('is the same day whichever day before it asks', () => {
    for (const today of ['2026-11-01', '2026-11-07', '2026-11-14'])
      expect(changesOn(byDueDate, today, byDueDate(today))).to.equal('2026-11-15');
  });

  it('a working-day deadline no fact names: Christmas Day moves it to the next working day', () => {
    const calendar = workingDayCalendar();
    // Red from the working day after 2026-12-25 (a Friday holiday): Monday the 28th.
    const deadline = calendar.move('2026-12-25', 'next');
    const judge = (day: string) =>
      verdict(day, { color: day >= deadline ? 'red' : 'amber', reason: 'r', facts: { period: '2026-11' } });
    expect(deadline).to.equal('2026-12-28');
    expect(changesOn(judge, '2026-12-20', judge('2026-12-20'))).to.equal('2026-12-28');
  });

  it('a verdict nothing dates: null', () => {
    const judge = (day: string) => verdict(day, { color: 'green', reason: 'r' });
    expect(changesOn(judge, '2026-11-01', judge('2026-11-01'))).to.equal(null);
  });
});
