import { expect } from 'chai';
import { decideRecordExtraction, recordExtractionDecider } from '../../../commands/ingestion/extract-from-text';
import { startCsvImportDecider, type StartCsvImport } from '../../../commands/ingestion/import-operator-csv';
import {
  anomaliesOf,
  type KnownWell,
  recordScadaReadingsDecider,
  type RecordScadaReadings,
} from '../../../commands/ingestion/record-scada-readings';
import { type RecordRrcScrape, recordRrcScrapeDecider } from '../../../commands/ingestion/run-rrc-scrape';
import { brokerData, brokerEventType } from '../../../streams/ingestion/broker-messages';
import {
  batchWells,
  type CsvWell,
  evolveOperatorCsvImport,
  type OperatorCsvImportEvent,
  type OperatorCsvImportState,
  packWells,
} from '../../../streams/ingestion/operator-csv-import';
import { given } from '../../support/given';

describe('ingestion deciders', () => {
  const dateRange = { from: '2025-01-01', to: '2025-01-31' };
  const scrape: RecordRrcScrape = {
    type: 'RecordRrcScrape',
    scrapeId: 's1',
    district: '08',
    dateRange,
    batches: [{ dataType: 'wells', records: [{ api_number: '42-329-30001' }] }],
  };

  it('a scrape is recorded per data type and completed with its counts', () => {
    given(recordRrcScrapeDecider)
      .when(scrape)
      .then([
        {
          type: 'RrcDataScraped',
          data: {
            scrapeId: 's1',
            dataType: 'wells',
            district: '08',
            dateRange,
            records: [{ api_number: '42-329-30001' }],
          },
        },
        { type: 'RrcScrapeCompleted', data: { scrapeId: 's1', district: '08', dateRange, counts: { wells: 1 } } },
      ]);
  });

  it('a completed scrape records nothing again', () => {
    given(recordRrcScrapeDecider, [
      { type: 'RrcScrapeCompleted', data: { scrapeId: 's1', district: '08', dateRange, counts: { wells: 1 } } },
    ])
      .when(scrape)
      .thenNothing();
  });

  it('the same CSV file starts its import once', () => {
    const start: StartCsvImport = {
      type: 'StartCsvImport',
      importId: 'i1',
      filename: 'wells.csv',
      sha256: 'ab',
      sizeBytes: 10,
      columns: ['api_number'],
    };
    given(startCsvImportDecider)
      .when(start)
      .then([
        {
          type: 'OperatorCsvImportStarted',
          data: { importId: 'i1', filename: 'wells.csv', sha256: 'ab', sizeBytes: 10, columns: ['api_number'] },
        },
      ]);
    given(startCsvImportDecider, [
      {
        type: 'OperatorCsvImportStarted',
        data: { importId: 'i1', filename: 'wells.csv', sha256: 'ab', sizeBytes: 10, columns: ['api_number'] },
      },
    ])
      .when(start)
      .thenNothing();
  });

  const well = (authorizations: KnownWell['authorizations']): Record<string, KnownWell> => ({
    '42-389-31001': { apiNumber: '42-389-31001', name: 'HOEFS 1H', authorizations },
  });
  const reading = (flared: number, day = '2026-03-02') => ({
    wellApi: '42-389-31001',
    timestamp: `${day}T06:00:00.000Z`,
    metrics: { flared_mcf: flared },
  });
  const auth = { authNumber: 'R32-1', authorizedMcf: 100, issuedDate: '2026-01-01', expiryDate: '2026-06-30' };

  it('flaring within the authorized volume is no anomaly', () => {
    expect(anomaliesOf([reading(100)], well([auth]))).to.deep.equal([]);
  });

  it('flaring above the authorized volume, after expiry or without authorization are Rule 32 anomalies', () => {
    expect(anomaliesOf([reading(101)], well([auth]))[0]).to.include({
      kind: 'flared_above_authorization',
      domain: 'rule_32',
      entityId: '42-389-31001',
    });
    expect(anomaliesOf([reading(10, '2026-07-01')], well([auth]))[0]).to.include({
      kind: 'flared_after_authorization_expiry',
    });
    expect(anomaliesOf([reading(10)], well([]))[0]).to.include({ kind: 'flared_without_authorization' });
  });

  it('readings of an unknown well are flagged once per well', () => {
    const readings = [
      reading(0),
      { ...reading(0), wellApi: '42-389-39999' },
      { ...reading(5), wellApi: '42-389-39999' },
    ];
    expect(anomaliesOf(readings, well([])).map((a) => `${a.entityId}:${a.kind}`)).to.deep.equal([
      '42-389-39999:unknown_well',
    ]);
  });

  it('a SCADA batch is recorded with one ComplianceAnomalyFlagged per anomaly, and only once', () => {
    const command: RecordScadaReadings = {
      type: 'RecordScadaReadings',
      batchId: 'b1',
      readings: [reading(300)],
      wells: well([auth]),
    };
    const events = given(recordScadaReadingsDecider).when(command).events();
    expect(events.map((e) => e.type)).to.deep.equal(['ScadaReadingsRecorded', 'ComplianceAnomalyFlagged']);
    given(recordScadaReadingsDecider, [
      { type: 'ScadaReadingsRecorded', data: { batchId: 'b1', readings: [reading(300)] } },
    ])
      .when(command)
      .thenNothing();
  });

  it('an extraction that found nothing records nothing', () => {
    expect(
      decideRecordExtraction(
        { type: 'RecordExtraction', extractionId: 'x', textSha256: 'h', entities: [], edges: [] },
        { status: 'none' },
      ),
    ).to.deep.equal([]);
    given(recordExtractionDecider, [
      {
        type: 'EntitiesExtracted',
        data: { extractionId: 'x', textSha256: 'h', entities: [{ type: 'well', name: '42-329-30001' }], edges: [] },
      },
    ])
      .when({
        type: 'RecordExtraction',
        extractionId: 'x',
        textSha256: 'h',
        entities: [{ type: 'well', name: '42-329-30001' }],
        edges: [],
      })
      .thenNothing();
  });

  it('names broker messages by what they carry', () => {
    expect(brokerEventType('RrcDataScraped', { dataType: 'wells' })).to.equal('wells_scraped');
    expect(brokerEventType('OperatorWellsImported', {})).to.equal('operator_wells_imported');
    expect(brokerEventType('EntitiesExtracted', {})).to.equal('entities_extracted');
  });

  describe('packed CSV batches', () => {
    const wells: CsvWell[] = [
      {
        apiNumber: '42-329-39001',
        row: 1,
        values: { operator_number: '123456', lease_name: 'JONES 97', latitude: '31.91' },
      },
      { apiNumber: '42-329-39002', row: 3, values: { operator_number: '123456', well_type: 'oil' } },
    ];

    it('write each column name once and read back the rows as they were staged', () => {
      const packed = packWells('i', 0, wells);
      expect(packed).to.deep.equal({
        importId: 'i',
        batch: 0,
        columns: ['operator_number', 'lease_name', 'latitude', 'well_type'],
        wells: [
          ['42-329-39001', 1, '123456', 'JONES 97', '31.91', null],
          ['42-329-39002', 3, '123456', null, null, 'oil'],
        ],
      });
      expect(batchWells('PackedOperatorWellsImported', packed)).to.deep.equal(wells);
    });

    it('go to the broker in the shape its consumers have always read', () => {
      expect(brokerEventType('PackedOperatorWellsImported', {})).to.equal('operator_wells_imported');
      expect(brokerData('PackedOperatorWellsImported', packWells('i', 2, wells))).to.deep.equal({
        importId: 'i',
        batch: 2,
        wells,
      });
      expect(brokerData('OperatorWellsImported', { importId: 'i', batch: 2, wells })).to.deep.equal({
        importId: 'i',
        batch: 2,
        wells,
      });
    });

    it('an interrupted import counts the rows already recorded in either form, so a retry resumes after them', () => {
      const events: OperatorCsvImportEvent[] = [
        {
          type: 'OperatorCsvImportStarted',
          data: { importId: 'i', filename: 'f.csv', sha256: 'h', sizeBytes: 1, columns: ['api_number'] },
        },
        { type: 'OperatorWellsImported', data: { importId: 'i', batch: 0, wells } },
        { type: 'PackedOperatorWellsImported', data: packWells('i', 1, wells.slice(0, 1)) },
      ];
      const state = events.reduce<OperatorCsvImportState>(evolveOperatorCsvImport, { status: 'none' });
      expect(state).to.deep.equal({ status: 'importing', batches: 2, rows: 3 });
    });
  });
});
