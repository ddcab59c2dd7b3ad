import { expect } from 'chai';
import { OUTPUT_CEILINGS, outputBounds } from '../../../src/platform/openapi/output-bounds';

/** The ceilings the document states for what the platform sends. */
describe('output bounds in the OpenAPI document', () => {
  const documentWith = (shared: object) => ({
    paths: {
      '/things': {
        post: {
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Input' } } } },
          responses: {
            '200': {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      name: { type: 'string' },
                      id: { type: 'string', maxLength: 36 },
                      kind: { type: 'string', enum: ['a', 'b'] },
                      count: { type: ['integer', 'null'], minimum: 0 },
                      tags: { type: 'array', items: { type: 'string' } },
                      input: { $ref: '#/components/schemas/Input' },
                      detail: { $ref: '#/components/schemas/Detail' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    components: { schemas: { Input: { type: 'object', properties: { note: { type: 'string' } } }, Detail: shared } },
  });

  it('fills in the runtime ceilings where a response states no bound, and keeps the bounds it states', () => {
    const document = documentWith({ type: 'object', properties: { detail: { type: 'string' } } });
    outputBounds(document);
    const properties = document.paths['/things'].post.responses['200'].content['application/json'].schema
      .properties as Record<string, Record<string, unknown>>;
    expect(properties.name.maxLength).to.equal(OUTPUT_CEILINGS.textLength);
    expect(properties.id.maxLength).to.equal(36);
    expect(properties.kind).to.not.have.property('maxLength');
    expect(properties.count).to.include({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, format: 'int64' });
    expect(properties.tags.maxItems).to.equal(OUTPUT_CEILINGS.items);
    expect((properties.tags.items as Record<string, unknown>).maxLength).to.equal(OUTPUT_CEILINGS.textLength);
    expect(document.components.schemas.Detail).to.deep.equal({
      type: 'object',
      properties: { detail: { type: 'string', maxLength: OUTPUT_CEILINGS.textLength } },
    });
  });

  it('leaves a schema a request uses unbounded, even where a response uses it too: an input is bounded by its check', () => {
    const document = documentWith({ type: 'string' });
    outputBounds(document);
    expect(document.components.schemas.Input).to.deep.equal({
      type: 'object',
      properties: { note: { type: 'string' } },
    });
  });
});
