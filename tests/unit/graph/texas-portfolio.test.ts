import { expect } from 'chai';
import { generatePortfolio } from '../../../commands/graph/seed/texas-portfolio';
import { formPrDue } from '../../../commands/compliance/packs/production';

describe('the Texas sample portfolio', () => {
  it('sets each Form PR deadline with the due-date rule it is handed (the regulator calendar, from compliance)', () => {
    const deadlines = (rule: (period: string) => string) =>
      generatePortfolio({ wells: 200, seed: 3, formPrDue: rule })
        .vertices.filter((v) => v.label === 'ComplianceDeadline' && v.properties.form === 'PR')
        .map((v) => [v.properties.period, v.properties.deadline_date]);
    const regulator = deadlines(formPrDue);
    expect(regulator).to.not.be.empty;
    for (const [period, due] of regulator) expect(due).to.equal(formPrDue(period));
    expect(deadlines(() => '2099-12-31').every(([, due]) => due === '2099-12-31')).to.equal(true);
  });
});
