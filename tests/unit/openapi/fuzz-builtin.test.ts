import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { contexts } from '../../../src/contexts';
import { documentFor } from '../../../src/platform/openapi/serve';
import { generator } from '../../../ops/fuzz-builtin';

/** The fallback fuzz engine's generator: its "valid" values really are valid for the document's schemas. */
describe('the built-in fuzz generator', () => {
  const document = documentFor(contexts, 'public');
  const ajv = new Ajv2020({ strict: false });
  addFormats(ajv);
  ajv.addSchema(document as object, 'doc');
  const bodies = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries<any>(item as object)
      .filter(([, op]) => op.requestBody?.content?.['application/json'])
      .map(([method]) => ({
        where: `${method} ${path}`,
        ref: `doc#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/requestBody/content/application~1json/schema`,
      })),
  );

  it("generates request bodies that match the document's schemas (patterns aside)", () => {
    expect(bodies.length).to.be.greaterThan(40);
    let seed = 1;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const gen = generator(document, random);
    let checked = 0;
    for (const { where, ref } of bodies) {
      const validate = ajv.compile({ $ref: ref });
      for (let i = 0; i < 10; i++) {
        const value = gen.valid({ $ref: ref.replace(/^doc/, '') });
        if (validate(value)) checked++;
        else if (!(validate.errors ?? []).every((e) => e.keyword === 'pattern' || e.keyword === 'not'))
          expect.fail(`${where}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
      }
    }
    expect(checked).to.be.greaterThan(bodies.length * 5);
  });

  it('generates invalid variants the schemas refuse most of the time', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const gen = generator(document, random);
    let refused = 0;
    let total = 0;
    for (const { ref } of bodies) {
      const validate = ajv.compile({ $ref: ref });
      const schema = { $ref: ref.replace(/^doc/, '') };
      for (let i = 0; i < 5; i++, total++) if (!validate(gen.invalid(schema))) refused++;
    }
    expect(refused / total).to.be.greaterThan(0.5);
  });
});
