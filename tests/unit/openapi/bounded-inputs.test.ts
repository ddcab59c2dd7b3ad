import { expect } from 'chai';
import { z } from 'zod';
import { CreateEntityBody } from '../../../commands/graph/create-entity';
import { boundedRecord, LIMITS } from '../../../src/platform/http/bounded';

/** Free-form objects (graph properties, metadata, payloads) are bounded in count and size. */
describe('bounded free-form objects', () => {
  const record = boundedRecord(z.unknown());

  it('accepts what a real user sends', () => {
    expect(record.safeParse({ api: '42-000-00001', depth_ft: 9200, tags: ['a', 'b'] }).success).to.equal(true);
  });

  it(`refuses more than ${LIMITS.properties} properties or more than ${LIMITS.recordBytes / 1024} KB in all`, () => {
    const many = Object.fromEntries(Array.from({ length: LIMITS.properties + 1 }, (_, i) => [`p${i}`, i]));
    expect(record.safeParse(many).success).to.equal(false);
    expect(record.safeParse({ note: 'x'.repeat(LIMITS.recordBytes) }).success).to.equal(false);
  });

  it('POST /graph/entities refuses a 1 MB property value', () => {
    const parsed = CreateEntityBody.safeParse({
      label: 'Well',
      entity_id: '42-000-00001',
      properties: { note: 'x'.repeat(1024 * 1024) },
    });
    expect(parsed.success).to.equal(false);
    expect(JSON.stringify(parsed.error?.issues)).to.include('KB in all');
  });
});
