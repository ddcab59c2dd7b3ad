import { expect } from 'chai';
import { encode } from 'gpt-tokenizer';
import { countTokens } from '../../../src/platform/infra/tokens';

describe('token counts', () => {
  const fresh = (text: string) => encode(text, { disallowedSpecial: new Set() }).length;

  it("given a long text counted before, when counted again, then the count is the tokenizer's (a remembered count, not a stale one)", () => {
    const prompt = 'You are the compliance assistant of an oil-and-gas operator. '.repeat(20);
    expect(countTokens(prompt)).to.equal(fresh(prompt));
    expect(countTokens(`${prompt}`)).to.equal(fresh(prompt));
    const changed = `${prompt} Flaring authorizations expire.`;
    expect(countTokens(changed)).to.equal(fresh(changed));
  });

  it('given more distinct texts than the memory keeps, when each is counted, then every count is still right', () => {
    for (let i = 0; i < 300; i++) {
      const text = `well ${i} `.repeat(2_000 + i);
      expect(countTokens(text)).to.equal(fresh(text));
    }
    const special = `<|endoftext|> ${'x '.repeat(200)}`;
    expect(countTokens(special)).to.equal(fresh(special));
  });
});
