import { expect } from 'chai';
import { extractEntities } from '../../../commands/ingestion/extract-entities';

describe('entity extraction from RRC prose', () => {
  it('reads a hearing notice: operator with P-5, lease, field, county, wells and permit', () => {
    const text = `OIL AND GAS DOCKET NO. 08-0321456
APPLICATION OF CAPROCK ENERGY OPERATING LLC (P-5 NO. 130471) FOR AN EXCEPTION TO STATEWIDE RULE 32 FOR THE BRUNSON 14 LEASE, PHANTOM (WOLFCAMP) FIELD, REEVES COUNTY, TEXAS.
Caprock Energy Operating LLC requests authority to flare casinghead gas from Well No. 2H (API No. 42-389-35521) and Well No. 3H (API No. 42389355220000) on the BRUNSON 14 Lease in Reeves County.
The wells were drilled under Drilling Permit No. 874412.`;
    const { entities, edges } = extractEntities(text);
    const names = entities.map((e) => `${e.type}:${e.name}`);
    expect(names).to.include.members([
      'operator:CAPROCK ENERGY OPERATING LLC',
      'lease:BRUNSON 14',
      'field:PHANTOM (WOLFCAMP)',
      'well:42-389-35521',
      'well:42-389-35522',
      'county:Reeves County',
      'permit:874412',
    ]);
    expect(edges).to.deep.include({ from: '42-389-35521', to: 'BRUNSON 14', type: 'LOCATED_IN' });
    expect(edges).to.deep.include({ from: '42-389-35522', to: 'Reeves County', type: 'LOCATED_IN' });
    expect(edges).to.deep.include({ from: 'BRUNSON 14', to: 'CAPROCK ENERGY OPERATING LLC', type: 'OPERATED_BY' });
  });

  it('is deterministic and finds nothing in text without RRC entities', () => {
    const text = 'Weekly safety meeting notes: remember to wear hard hats on site.';
    expect(extractEntities(text)).to.deep.equal({ entities: [], edges: [] });
    const prose = 'Well 42-461-40001 on the UNIVERSITY 7 Lease is operated by LLANO PETROLEUM INC.';
    expect(extractEntities(prose)).to.deep.equal(extractEntities(prose));
  });

  it('ignores numbers shaped like API numbers outside Texas or with an even county code', () => {
    const { entities } = extractEntities('Compare 43-329-12345 and 42-330-12345 with 42-329-12345.');
    expect(entities.map((e) => e.name)).to.deep.equal(['42-329-12345']);
  });
});
