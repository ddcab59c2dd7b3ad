import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../../../src/platform/infra/logger';
import { tracingOn } from '../../../src/platform/observability/tracing';
import { checklistAggregate } from '../../../streams/checklists/checklist';
import { signIn, type Session } from '../../support/auth';
import { eventually } from '../../support/eventually';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../support/otlp-receiver';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { noteDecider, noteStream } from '../../support/toy-context';
import type { ContextModule } from '../../../src/platform/context-module';
import { contexts as productContexts } from '../../../src/contexts';
import { createWell } from '../checklists/graph-fixture';

/** A pino destination that keeps every JSON line it is given. */
function logLines(): { stream: Writable; entries: Array<Record<string, unknown>> } {
  const entries: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) entries.push(JSON.parse(line));
      done();
    },
  });
  return { stream, entries };
}

/** Creates a Form PR checklist on a new well, completes every item and submits it. */
async function submitChecklist(t: TestPlatform, tenantId: string) {
  const operator: Session = await signIn(t, { roles: ['operator'], tenantId });
  const admin: Session = await signIn(t, { roles: ['admin'], tenantId });
  const well = await createWell(t, admin);
  const created = await t.api.post(
    '/checklists',
    { template_id: 'form_pr', entity_id: well.api, entity_type: 'well', domain: 'production' },
    operator.headers,
  );
  expect(created.status).to.equal(201);
  const id: string = created.body.checklist_id;
  for (let i = 0; i < created.body.items.length; i++)
    expect(
      (await t.api.patch(`/checklists/${id}/items/${i}`, { status: 'complete' }, operator.headers)).status,
    ).to.equal(200);
  const submitted = await t.api.post(`/checklists/${id}/submit`, {}, operator.headers);
  expect(submitted.status).to.equal(200);
  return { id, requestId: submitted.headers.get('x-request-id')!, approvalId: submitted.body.approval.approval_id };
}

/** A reactor that logs, and fails its first attempt at each event (the lane retries it). */
function echoContext(): ContextModule {
  const attempts = new Map<string, number>();
  return {
    name: 'toy-traced',
    reactors: [
      {
        name: 'toy.traced-echo',
        handles: ['NoteCreated'],
        react: (event) => [
          {
            step: 'echo',
            operation: {
              name: 'toy.echo',
              input: { eventId: event.id },
              async send(deps) {
                const attempt = (attempts.get(event.id) ?? 0) + 1;
                attempts.set(event.id, attempt);
                deps.logger.info({ eventId: event.id, attempt }, 'toy reaction');
                if (attempt === 1) throw new Error('the first attempt fails');
              },
            },
          },
        ],
      },
    ],
  };
}

describe('tracing (OpenTelemetry over OTLP/HTTP)', function () {
  this.timeout(120_000);

  describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    let t: TestPlatform;
    const log = logLines();
    before(async () => {
      t = await startTestPlatform({ logger: createLogger('info', {}, log.stream) });
    });
    after(() => t.close());

    it('starts no SDK, stamps no trace context on events and writes no trace ids in logs', async () => {
      expect(tracingOn()).to.equal(false);
      const tenantId = randomUUID();
      const { id, requestId } = await submitChecklist(t, tenantId);
      const events = await t.deps.store.readStream(checklistAggregate.stream(tenantId, id));
      expect(events.map((e) => e.metadata.traceparent)).to.deep.equal(events.map(() => undefined));
      const during = log.entries.filter((e) => e.requestId === requestId);
      expect(during).to.not.be.empty;
      for (const entry of during) expect(entry).to.not.have.any.keys('trace_id', 'span_id');
    });
  });

  describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    let receiver: OtlpReceiver;
    let t: TestPlatform;
    const log = logLines();
    const tenantId = randomUUID();
    let submitted: Awaited<ReturnType<typeof submitChecklist>>;

    before(async () => {
      receiver = await startOtlpReceiver();
      t = await startTestPlatform({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' },
        logger: createLogger('info', {}, log.stream),
        contexts: [...productContexts, echoContext()],
      });
      submitted = await submitChecklist(t, tenantId);
    });
    after(async () => {
      await t?.close();
      await receiver?.close();
    });

    const named = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);
    const childOf = (spans: ReceivedSpan[], parent: ReceivedSpan, name: string) =>
      spans.find((s) => s.parentSpanId === parent.spanId && s.name === name && s.traceId === parent.traceId);

    /** The submit request's server span and, once exported, the chain down to the reaction's command. */
    async function submitTrace() {
      return eventually(async () => {
        const spans = receiver.spans;
        const request = named(spans, 'POST /api/v1/checklists/{id}/submit').find(
          (s) => s.attributes['request.id'] === submitted.requestId,
        );
        if (!request) return null;
        const command = childOf(spans, request, 'command SubmitChecklist');
        const append = command && childOf(spans, command, 'append');
        const reaction = append && childOf(spans, append, 'react checklists.open-review-approval');
        const reactionCommand = reaction && childOf(spans, reaction, 'command RequestApproval');
        if (!reactionCommand) return null;
        return { spans: spans.filter((s) => s.traceId === request.traceId), request, command, append, reactionCommand };
      });
    }

    it('one trace holds the submit request, its command, its append and the command of the reaction that opens the approval', async () => {
      const { spans, request, command, append, reactionCommand } = await submitTrace();
      expect(request.kind).to.equal(2); // SERVER
      expect(request.service).to.equal('compliance-platform');
      expect(request.attributes).to.include({
        'http.request.method': 'POST',
        'http.route': '/api/v1/checklists/{id}/submit',
        'http.response.status_code': 200,
      });
      const stream = checklistAggregate.stream(tenantId, submitted.id);
      expect(command.attributes).to.include({ 'command.name': 'SubmitChecklist', 'command.stream': stream });
      expect(command.attributes['command.revision']).to.be.a('number');
      expect(append.attributes).to.include({
        'eventstore.stream': stream,
        'eventstore.event_types': 'ChecklistSubmitted',
      });
      expect(reactionCommand.attributes['command.stream']).to.contain(submitted.approvalId);
      // The reaction ran inside a reactor lane batch, which it links.
      const reaction = spans.find((s) => s.spanId === reactionCommand.parentSpanId)!;
      const batch = receiver.spans.find((s) => s.spanId === reaction.links[0]?.spanId);
      expect(batch?.name).to.equal('reactor batch checklists.open-review-approval');
      expect(batch?.traceId).to.not.equal(request.traceId);
      // SQL from the pg instrumentation, inside the same trace.
      expect(
        spans.some(
          (s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql',
        ),
      ).to.equal(true);
    });

    it('the submitted event carries the trace context of its append in its metadata', async () => {
      const { append } = await submitTrace();
      const [event] = (await t.deps.store.readStream(checklistAggregate.stream(tenantId, submitted.id))).filter(
        (e) => e.type === 'ChecklistSubmitted',
      );
      expect(event.metadata.traceparent).to.equal(`00-${append.traceId}-${append.spanId}-01`);
    });

    it("an agent turn's model call is the AI SDK's span inside the request's trace, without the prompt or the reply", async () => {
      const operator = await signIn(t, { roles: ['operator'], tenantId });
      const conversation = await t.api.post('/conversations', { agent_id: 'compliance' }, operator.headers);
      const response = await t.api.post(
        '/execute',
        { conversation_id: conversation.body.id, message: 'What can you do?' },
        operator.headers,
      );
      expect(response.status).to.equal(200);
      const requestId = response.headers.get('x-request-id');
      const model = await eventually(async () => {
        const request = receiver.spans.find((s) => s.attributes['request.id'] === requestId);
        return request && receiver.spans.find((s) => s.traceId === request.traceId && s.name === 'ai.generateText');
      });
      expect(model.attributes).to.include({ 'ai.model.id': 'deterministic', 'resource.name': 'model-call' });
      expect(Object.keys(model.attributes).filter((k) => /prompt|response\.text|messages/.test(k))).to.deep.equal([]);
    });

    it("a reaction's log lines carry its span, and the lane's line about its failure the failed batch's trace", async () => {
      const noteId = randomUUID();
      await t.deps.handle(
        noteDecider,
        noteStream(tenantId, noteId),
        { type: 'CreateNote', noteId, title: 'traced' },
        { tenantId, actorId: 'test' },
      );
      const lines = await eventually(async () => {
        const reacted = log.entries.filter((e) => e.msg === 'toy reaction' && e.attempt === 2);
        return (
          reacted.length > 0 && log.entries.filter((e) => e.msg === 'toy reaction' || e.reactor === 'toy.traced-echo')
        );
      });
      const append = await eventually(async () =>
        receiver.spans.find(
          (s) => s.name === 'append' && s.attributes['eventstore.stream'] === noteStream(tenantId, noteId),
        ),
      );
      const reactions = await eventually(async () => {
        const found = receiver.spans.filter(
          (s) => s.name === 'react toy.traced-echo' && s.parentSpanId === append.spanId,
        );
        return found.length === 2 && found;
      });
      for (const line of lines.filter((e) => e.msg === 'toy reaction')) {
        expect(line.trace_id).to.equal(append.traceId);
        expect(reactions.map((r) => r.spanId)).to.include(line.span_id);
      }
      const failure = lines.find((e) => e.reactor === 'toy.traced-echo' && e.level === 50)!;
      expect(failure.msg).to.match(/batch failed/);
      const batch = await eventually(async () =>
        receiver.spans.find((s) => s.spanId === failure.span_id && s.traceId === failure.trace_id),
      );
      expect(batch.name).to.equal('reactor batch toy.traced-echo');
      expect(batch.links).to.deep.include({ traceId: append.traceId, spanId: append.spanId });
    });

    it("continues a caller's traceparent on the internal listener, not on the public one without TRUST_PROXY", async () => {
      const traceId = randomBytes(16).toString('hex');
      const spanId = randomBytes(8).toString('hex');
      const headers = { traceparent: `00-${traceId}-${spanId}-01` };
      const answers = [
        await fetch(`${t.internalUrl}/health`, { headers }),
        await fetch(`${t.publicUrl}/health`, { headers }),
      ];
      const ids = answers.map((r) => r.headers.get('x-request-id'));
      const [internal, external] = await eventually(async () => {
        const spans = ids.map((id) => receiver.spans.find((s) => s.attributes['request.id'] === id));
        return spans.every(Boolean) && (spans as ReceivedSpan[]);
      });
      expect(internal).to.include({ name: 'GET /health', traceId, parentSpanId: spanId });
      expect(external.traceId).to.not.equal(traceId);
      expect(external.parentSpanId).to.equal(null);
    });

    it("every log line written during the request carries the request's trace_id and a span_id of that trace", async () => {
      const { spans, request } = await submitTrace();
      const during = log.entries.filter((e) => e.requestId === submitted.requestId);
      expect(during.map((e) => e.msg)).to.include('request');
      const ids = new Set(spans.map((s) => s.spanId));
      for (const entry of during) {
        expect(entry.trace_id, JSON.stringify(entry)).to.equal(request.traceId);
        expect(ids.has(String(entry.span_id)), JSON.stringify(entry)).to.equal(true);
      }
      expect(during.find((e) => e.msg === 'request')?.span_id).to.equal(request.spanId);
    });
  });
});
