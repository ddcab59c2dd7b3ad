import { expect } from 'chai';
import { modelJudge, parseJudgeReply } from '../../../src/contexts/evaluation/judge';
import { createModelRouter } from '../../../src/platform/infra/llm/model-router';
import { type ChatServer, startChatServer } from '../../integration/agents/chat-completions-server';

describe('a model as the judge of expert cases', () => {
  let chat: ChatServer;
  before(async () => {
    chat = await startChatServer();
  });
  after(async () => chat.close());
  beforeEach(() => {
    chat.requests.length = 0;
    chat.script.length = 0;
  });

  const judge = () =>
    modelJudge(createModelRouter({ localBaseUrl: chat.baseUrl, turnTimeoutMs: 60_000 }), 'local/llama-3.1-8b-instruct');

  it('asks an OpenAI-compatible model with the expected output and the answer, and reads its JSON verdict', async () => {
    chat.script.push({ text: 'Verdict: {"score": 0.75, "rationale": "Names the W-1 but not the fee."}' });
    const verdict = await judge().grade('File a W-1 and pay the fee.', 'File a W-1.');
    expect(verdict).to.deep.equal({ score: 0.75, rationale: 'Names the W-1 but not the fee.' });
    const [request] = chat.requests;
    const user = request.messages.find((m: any) => m.role === 'user');
    expect(JSON.stringify(user.content)).to.contain('File a W-1 and pay the fee.').and.to.contain('Answer to grade');
  });

  it('a reply that is not a JSON verdict, or a provider error, throws (the runner marks the case degraded)', async () => {
    chat.script.push({ text: 'I think it is fine.' });
    let thrown: unknown;
    await judge()
      .grade('a', 'b')
      .catch((e) => (thrown = e));
    expect(String(thrown)).to.match(/did not answer with JSON/);
    chat.script.push({ status: 500, error: 'overloaded' });
    thrown = undefined;
    await judge()
      .grade('a', 'b')
      .catch((e) => (thrown = e));
    expect(thrown).to.be.instanceOf(Error);
  });

  it('scores outside 0..1 are refused; a string score is read', () => {
    expect(() => parseJudgeReply('{"score": 7}')).to.throw(/from 0 to 1/);
    expect(parseJudgeReply('{"score": "0.5", "rationale": "half"}')).to.deep.equal({ score: 0.5, rationale: 'half' });
  });
});
