import { expect } from 'chai';
import { checkEgress, egressPolicy, refusalOf } from '../../../commands/connectors/egress';

/** Connector egress: every resolved address must be public unicast unless the allow-list admits it. */
describe('connector egress check', () => {
  const closed = egressPolicy([]);

  for (const [address, range] of [
    ['127.0.0.1', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.3.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
  ]) {
    it(`refuses ${address} (${range})`, () => {
      expect(refusalOf(address, closed)).to.contain(range);
    });
  }

  it('refuses numeric IPv4 spellings of loopback: 2130706433, 0x7f.0.0.1, 127.1, 0177.0.0.1', async () => {
    for (const host of ['2130706433', '0x7f.0.0.1', '127.1', '0177.0.0.1']) {
      const verdict = await checkEgress(host, closed, async () => {
        throw new Error('a numeric host must not be resolved');
      });
      expect(verdict, host).to.deep.include({ ok: false, error: 'egress_denied' });
      expect(verdict.addresses).to.deep.equal(['127.0.0.1']);
    }
  });

  it('refuses IPv4-mapped, NAT64 and 6to4 forms of private addresses', () => {
    expect(refusalOf('::ffff:127.0.0.1', closed)).to.contain('loopback');
    expect(refusalOf('::ffff:7f00:1', closed)).to.contain('loopback');
    expect(refusalOf('64:ff9b::a00:1', closed)).to.match(/embeds 10\.0\.0\.1 \(private\)/);
    expect(refusalOf('2002:c0a8:0101::1', closed)).to.match(/embeds 192\.168\.1\.1 \(private\)/);
  });

  it('admits public unicast addresses', () => {
    expect(refusalOf('8.8.8.8', closed)).to.equal(null);
    expect(refusalOf('2001:4860:4860::8888', closed)).to.equal(null);
    expect(refusalOf('::ffff:8.8.8.8', closed)).to.equal(null);
  });

  it('refuses a name when ANY of its addresses is denied, and names them', async () => {
    const verdict = await checkEgress('db.example.com', closed, async () => ['93.184.216.34', '10.1.1.1']);
    expect(verdict).to.deep.include({ ok: false, error: 'egress_denied', addresses: ['93.184.216.34', '10.1.1.1'] });
  });

  it('connects to the exact address it checked: the resolver is asked once', async () => {
    let calls = 0;
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    const verdict = await checkEgress('rebind.example.com', closed, async () => answers[calls++]);
    expect(verdict).to.deep.include({ ok: true, address: '93.184.216.34' });
    expect(calls).to.equal(1);
  });

  it('a name that does not resolve is resolution_failed', async () => {
    const verdict = await checkEgress('nowhere.invalid', closed, async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    });
    expect(verdict).to.deep.include({ ok: false, error: 'resolution_failed' });
    expect((verdict as { reason: string }).reason).to.contain('ENOTFOUND');
  });

  it('CONNECTOR_EGRESS_ALLOW admits the listed CIDRs and nothing else', async () => {
    const open = egressPolicy(['127.0.0.0/8', '10.20.0.0/16']);
    expect(refusalOf('127.0.0.1', open)).to.equal(null);
    expect(refusalOf('10.20.3.4', open)).to.equal(null);
    expect(refusalOf('10.21.3.4', open)).to.contain('private');
    expect(refusalOf('::1', open)).to.contain('loopback');
    expect(await checkEgress('[::ffff:127.0.0.1]', open)).to.deep.include({ ok: true, address: '127.0.0.1' });
  });
});
