import { expect } from 'chai';
import { buildAuditRegistry } from '../../../src/platform/audit/registry';
import { contexts } from '../../../src/contexts';
import { entityExtractionAggregate } from '../../../streams/ingestion/entity-extraction';
import { operatorCsvImportAggregate, packWells } from '../../../streams/ingestion/operator-csv-import';
import { rrcScrapeAggregate } from '../../../streams/ingestion/rrc-scrape';
import { scadaBatchAggregate } from '../../../streams/ingestion/scada-batch';

const T = '11111111-2222-3333-4444-555555555555';

describe('ingestion audit catalog', () => {
  const registry = buildAuditRegistry(contexts);
  const say = (kind: string, type: string, data: unknown) =>
    registry.aggregate(kind)!.describe!({ type, data }, undefined, undefined);

  it('is registered and maps every ingestion stream back to its entity', () => {
    expect(registry.contexts).to.include('ingestion');
    expect(registry.entityOf(rrcScrapeAggregate.stream(T, 's-1'), T)).to.deep.equal({
      kind: 'rrc-scrape',
      id: 's-1',
      known: true,
    });
    expect(registry.entityOf(operatorCsvImportAggregate.stream(T, 'i-1'), T)).to.deep.equal({
      kind: 'operator-csv-import',
      id: 'i-1',
      known: true,
    });
    expect(registry.entityOf(scadaBatchAggregate.stream(T, 'b-1'), T)).to.deep.equal({
      kind: 'scada-batch',
      id: 'b-1',
      known: true,
    });
    expect(registry.entityOf(entityExtractionAggregate.stream(T, 'x-1'), T)).to.deep.equal({
      kind: 'text-extraction',
      id: 'x-1',
      known: true,
    });
  });

  it('reads an RRC scrape in words: records per type, then the counts', () => {
    const dateRange = { from: '2025-01-01', to: '2025-03-31' };
    expect(
      say('rrc-scrape', 'RrcDataScraped', {
        scrapeId: 's',
        dataType: 'wells',
        district: '08',
        dateRange,
        records: [{}, {}],
      }),
    ).to.equal('scraped 2 records of wells in district 08 (2025-01-01 to 2025-03-31)');
    expect(
      say('rrc-scrape', 'RrcScrapeCompleted', {
        scrapeId: 's',
        district: '08',
        dateRange,
        counts: { operators: 6, wells: 36 },
      }),
    ).to.equal('scrape of district 08 (2025-01-01 to 2025-03-31) completed: 6 operators, 36 wells');
  });

  it('reads an operator CSV import in words: file, batches with their rows, totals', () => {
    expect(
      say('operator-csv-import', 'OperatorCsvImportStarted', {
        importId: 'i',
        filename: 'wells.csv',
        sha256: 'abcdef0123456789',
        sizeBytes: 1200,
        columns: ['api_number', 'lease_name'],
      }),
    ).to.equal('import of wells.csv started (1200 bytes, SHA-256 abcdef012345…, 2 columns)');
    const wells = [
      { apiNumber: '42-329-39001', row: 501, values: {} },
      { apiNumber: '42-329-39002', row: 503, values: {} },
    ];
    expect(say('operator-csv-import', 'OperatorWellsImported', { importId: 'i', batch: 1, wells })).to.equal(
      'batch 2: 2 wells imported (rows 501–503)',
    );
    expect(say('operator-csv-import', 'PackedOperatorWellsImported', packWells('i', 1, wells))).to.equal(
      'batch 2: 2 wells imported (rows 501–503)',
    );
    expect(
      say('operator-csv-import', 'OperatorCsvImportCompleted', {
        importId: 'i',
        rows: 1001,
        accepted: 1000,
        rejected: 1,
        batches: 2,
      }),
    ).to.equal('import completed: 1001 rows, 1000 accepted, 1 rejected, in 2 batches');
  });

  it('reads a SCADA batch and its Rule 32 anomaly in words', () => {
    const readings = [
      { wellApi: '42-389-31001', timestamp: '2026-03-02T06:00:00Z', metrics: { flared_mcf: 140 } },
      { wellApi: '42-389-31001', timestamp: '2026-03-03T06:00:00Z', metrics: { flared_mcf: 90 } },
    ];
    expect(say('scada-batch', 'ScadaReadingsRecorded', { batchId: 'b', readings })).to.equal(
      '2 readings of 1 well recorded',
    );
    const anomaly = {
      entityId: '42-389-31001',
      entityLabel: 'Well',
      domain: 'rule_32',
      kind: 'flared_above_authorization',
      detail: '140 mcf/d flared, above the 100 mcf/d authorized',
      observedAt: '2026-03-02T06:00:00Z',
      source: 'scada',
    };
    expect(say('scada-batch', 'ComplianceAnomalyFlagged', anomaly)).to.equal(
      'rule_32 anomaly flagged on Well 42-389-31001 (flared_above_authorization): 140 mcf/d flared, above the 100 mcf/d authorized',
    );
  });

  it('reads an extraction in words, wells by API number, without the text', () => {
    const data = {
      extractionId: 'x',
      textSha256: '0123456789abcdef',
      entities: [
        { type: 'well', name: '4232939001', api_number: '42-329-39001' },
        { type: 'operator', name: 'PECOS BASIN LLC' },
      ],
      edges: [{ from: '42-329-39001', to: 'PECOS BASIN LLC', type: 'OPERATED_BY' }],
    };
    expect(say('text-extraction', 'EntitiesExtracted', data)).to.equal(
      '2 entities [well 42-329-39001, operator PECOS BASIN LLC] and 1 edge extracted from text 0123456789ab…',
    );
  });
});
