import { Readable } from 'node:stream';
import { expect } from 'chai';
import {
  CsvFileRejected,
  mapHeader,
  normaliseApiNumber,
  normaliseHeader,
  stageCsv,
  stagedBatches,
  validateRow,
} from '../../../commands/ingestion/csv-wells';

describe('operator CSV rows', () => {
  it('normalises header case, spaces and punctuation', () => {
    expect(normaliseHeader('\uFEFF  Operator No. ')).to.equal('operator_no');
    expect(normaliseHeader('SURFACE-LAT')).to.equal('surface_lat');
    expect(normaliseHeader('Lease  Name')).to.equal('lease_name');
  });

  it('maps RRC PDQ column names to one vocabulary and keeps unknown columns under their normalised name', () => {
    const { columns, missing } = mapHeader([
      'API_NO',
      'OPERATOR_NO',
      'LEASE_NAME',
      'COUNTY',
      'FIELD_NAME',
      'SURFACE_LAT',
      'SURFACE_LONG',
      'Pumper Route',
    ]);
    expect(columns).to.deep.equal([
      'api_number',
      'operator_number',
      'lease_name',
      'county',
      'field_name',
      'latitude',
      'longitude',
      'pumper_route',
    ]);
    expect(missing).to.deep.equal([]);
    expect(mapHeader(['WELL', 'LEASE']).missing).to.deep.equal(['api_number']);
  });

  it('reads API numbers with or without dashes, the 14-digit form and a dropped state code', () => {
    expect(normaliseApiNumber('4232939001')).to.equal('42-329-39001');
    expect(normaliseApiNumber('42-329-39001')).to.equal('42-329-39001');
    expect(normaliseApiNumber('42-329-39001-01-00')).to.equal('42-329-39001');
    expect(normaliseApiNumber('32939001')).to.equal('42-329-39001');
  });

  it('refuses API numbers outside Texas or with an even county code', () => {
    expect(normaliseApiNumber('4332939001')).to.equal(null);
    expect(normaliseApiNumber('42-330-39001')).to.equal(null);
    expect(normaliseApiNumber('42-509-39001')).to.equal(null);
    expect(normaliseApiNumber('not an api')).to.equal(null);
  });

  it('normalises a valid row: district, P-5 padding, dates, well type', () => {
    const columns = ['api_number', 'operator_number', 'district', 'spud_date', 'well_type', 'latitude'];
    const result = validateRow(columns, ['4238931001', '4321', '8a', '4/2/2019', 'G', ' 31.50 '], 1);
    expect(result).to.deep.equal({
      well: {
        apiNumber: '42-389-31001',
        row: 1,
        values: {
          operator_number: '004321',
          district: '8A',
          spud_date: '2019-04-02',
          well_type: 'gas',
          latitude: '31.5',
        },
      },
    });
  });

  it('rejects a row naming the column and the reason', () => {
    const columns = ['api_number', 'longitude', 'district'];
    expect(validateRow(columns, ['', '-102', '08'], 4)).to.deep.equal({
      rejection: { row: 4, column: 'api_number', reason: 'the API number is empty' },
    });
    expect(validateRow(columns, ['4232939001', '-80.1', '08'], 5)).to.have.nested.property(
      'rejection.column',
      'longitude',
    );
    expect(validateRow(columns, ['4232939001', '-102', '11'], 6)).to.have.nested.property(
      'rejection.column',
      'district',
    );
    expect(validateRow(columns, ['4232939001', '-102', '08', 'extra'], 7))
      .to.have.nested.property('rejection.reason')
      .that.matches(/4 fields where the header has 3/);
  });

  it('stages accepted rows from a stream with a BOM and CRLF line ends, and reads them back in batches', async () => {
    const csv = '\uFEFFAPI_NO,LEASE_NAME\r\n4232939001,JONES 1\r\n4232939002,JONES 2\r\nbad,JONES 3\r\n';
    const staged = await stageCsv(Readable.from([Buffer.from(csv)]));
    try {
      expect(staged).to.include({ rows: 3, accepted: 2, rejected: 1 });
      expect(staged.columns).to.deep.equal(['api_number', 'lease_name']);
      const batches = [];
      for await (const batch of stagedBatches(staged.path, 1)) batches.push(batch.map((w) => w.apiNumber));
      expect(batches).to.deep.equal([['42-329-39001'], ['42-329-39002']]);
    } finally {
      await staged.discard();
    }
  });

  it('a record longer than any sane row (garbage without line ends) rejects the file', async () => {
    const garbage = `API_NO\n${'x'.repeat(200 * 1024)}`;
    let thrown: unknown;
    await stageCsv(Readable.from([Buffer.from(garbage)])).catch((e) => (thrown = e));
    expect(thrown).to.be.instanceOf(CsvFileRejected);
    expect((thrown as CsvFileRejected).reason).to.match(/not valid CSV/);
  });

  it('a UTF-8 character split across chunks is read as one character', async () => {
    const bytes = Buffer.from('API_NO,LEASE_NAME\n4232939001,PEÑA 1\n');
    const cut = bytes.indexOf(0xc3) + 1;
    const staged = await stageCsv(Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)]));
    try {
      expect(staged.accepted).to.equal(1);
      for await (const [well] of stagedBatches(staged.path, 10)) expect(well.values.lease_name).to.equal('PEÑA 1');
    } finally {
      await staged.discard();
    }
  });
});
