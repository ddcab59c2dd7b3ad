import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { Logger } from 'pino';

/**
 * OpenTelemetry traces (docs/operations.md#tracing). Only `@opentelemetry/api` loads with
 * this file; the SDK, the OTLP/HTTP exporter and the pg instrumentation load when a platform
 * starts with `OTEL_EXPORTER_OTLP_ENDPOINT` set. Without it every helper below runs its
 * function straight through: no span, no context, no trace ids in logs or event metadata.
 *
 * The tracer provider, the context manager and the propagator are process-wide in
 * OpenTelemetry (the AI SDK and the pg instrumentation find them there), so this module keeps
 * the one running SDK, shared by every platform of the process that asks for tracing (tests
 * start several); the last of them to stop shuts it down.
 */

export interface TracingConfig {
  /** The collector's OTLP/HTTP base address; spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  headers: Record<string, string>;
  serviceName: string;
  /** The share of new traces recorded (a trace continued from a parent follows the parent's choice). */
  sampleRatio: number;
  /** Longest a finished span waits in the batch before it is sent (ms). */
  exportDelayMs: number;
}

interface Running {
  endpoint: string;
  provider: TracerProvider & { shutdown(): Promise<void>; forceFlush(): Promise<void> };
  tracer: Tracer;
  users: number;
}

let running: Running | null = null;
/** Kept across restarts of the SDK: require hooks see a module once, so a new instance would never patch pg again. */
let pgInstrumentation: { enable(): void; disable(): void; setTracerProvider(provider: TracerProvider): void } | null =
  null;

export interface TracingHandle {
  /** Sends the spans still waiting in the batch. */
  flush(): Promise<void>;
  /** Flushes; the last platform to stop shuts the SDK down. */
  stop(): Promise<void>;
}

const idle: TracingHandle = { flush: async () => undefined, stop: async () => undefined };

/** Starts tracing for one platform (null config: off, and nothing is loaded). */
export function startTracing(config: TracingConfig | null, logger: Logger): TracingHandle {
  if (!config) return idle;
  if (running) {
    if (running.endpoint !== config.endpoint)
      logger.warn(
        { endpoint: running.endpoint, asked: config.endpoint },
        'tracing already runs in this process: spans go to the endpoint of the platform that started it',
      );
    running.users++;
  } else running = boot(config);
  const mine = running;
  let stopped = false;
  return {
    flush: () => mine.provider.forceFlush(),
    async stop() {
      if (stopped) return;
      stopped = true;
      await mine.provider.forceFlush().catch((err) => logger.warn({ err }, 'spans not sent at stop'));
      if (--mine.users > 0 || running !== mine) return;
      running = null;
      pgInstrumentation?.disable();
      await mine.provider.shutdown().catch(() => undefined);
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

function boot(config: TracingConfig): Running {
  const { NodeTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } =
    require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const exporter = new OTLPTraceExporter({
    url: `${config.endpoint.replace(/\/+$/, '')}/v1/traces`,
    headers: config.headers,
  });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: config.exportDelayMs })],
  });
  // The AsyncLocalStorage context manager and the W3C propagator, process-wide.
  provider.register();
  instrumentPg(provider);
  return { endpoint: config.endpoint, provider, tracer: provider.getTracer('compliance-platform'), users: 1 };
}

/**
 * SQL spans (`@opentelemetry/instrumentation-pg`), only under a span of ours: the lanes' idle
 * polls, the leader probes and the wake-up listener would otherwise each make a trace a second.
 * The instrumentation patches pg's prototypes when pg is required; `ops/cli.ts` and the test
 * files have loaded pg before any platform starts, so pg is required once more right after the
 * hook is in place, which hands the hook the loaded module and patches the prototypes every
 * pool and client already shares.
 */
function instrumentPg(provider: TracerProvider): void {
  if (!pgInstrumentation) {
    const { PgInstrumentation } =
      require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
    pgInstrumentation = new PgInstrumentation({ requireParentSpan: true, enabled: false });
  }
  pgInstrumentation.setTracerProvider(provider);
  pgInstrumentation.enable();
  require('pg');
  require('pg-pool');
}

/** Whether spans are being made in this process. */
export function tracingOn(): boolean {
  return running !== null;
}

/**
 * Runs `fn` in a new span (a child of the active one, or of `options.parent`): ended when `fn`
 * settles, marked as an error with the exception when it throws. Without tracing, `fn` alone.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span | undefined) => Promise<T>,
  /** `root`: a trace of its own, whatever context the caller runs in (a lane's loop). */
  options: { parent?: Context; root?: boolean; links?: Link[]; kind?: SpanKind } = {},
): Promise<T> {
  if (!running) return fn(undefined);
  const parent = options.parent ?? (options.root ? ROOT_CONTEXT : context.active());
  const span = running.tracer.startSpan(
    name,
    { attributes, links: options.links, kind: options.kind ?? SpanKind.INTERNAL },
    parent,
  );
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await fn(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: String((error as Error)?.message ?? error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Starts a span that the caller ends (an HTTP request ends with its response), and the context that holds it. */
export function startSpan(
  name: string,
  attributes: Attributes,
  options: { parent?: Context; kind?: SpanKind } = {},
): { span: Span; context: Context } | null {
  if (!running) return null;
  const parent = options.parent ?? context.active();
  const span = running.tracer.startSpan(name, { attributes, kind: options.kind ?? SpanKind.INTERNAL }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `fn` in `ctx` (null: as it is). */
export function withContext<T>(ctx: Context | null, fn: () => T): T {
  return ctx ? context.with(ctx, fn) : fn();
}

/**
 * Runs `fn` outside any trace: work a request only happens to start but that outlives it (a
 * subscription shared by later requests) would otherwise add its spans to that request's
 * trace for as long as it runs.
 */
export function detached<T>(fn: () => T): T {
  return running ? context.with(ROOT_CONTEXT, fn) : fn();
}

/** Adds attributes to the active span (a result known only at the end: a command's revision). */
export function noteOnSpan(attributes: Attributes): void {
  if (running) trace.getActiveSpan()?.setAttributes(attributes);
}

/** `fn` bound to the context active now: a callback another emitter calls later still logs with this trace. */
export function bindToCurrentContext<F extends (...args: never[]) => unknown>(fn: F): F {
  return running ? context.bind(context.active(), fn) : fn;
}

const NO_FIELDS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * `trace_id` and `span_id` of the active span, for every log line (pino's mixin, with
 * `mergeLogFields`). Without tracing there is no active span and no field: a shared empty
 * object, nothing allocated per line.
 */
export function logTraceFields(): Record<string, string> {
  if (!running) return NO_FIELDS;
  const span = trace.getActiveSpan();
  if (!span) return NO_FIELDS;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** pino's merge of the mixin's fields into a line's own (its own win); the shared empty object is left alone. */
export function mergeLogFields(mergeObject: object, mixinObject: object): object {
  return mixinObject === NO_FIELDS ? mergeObject : Object.assign(mixinObject, mergeObject);
}

/** Where a trace's context travels in event metadata (W3C Trace Context). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The active context as W3C headers, for an event's metadata; empty without tracing or outside a span. */
export function traceCarrier(): TraceCarrier {
  if (!running || !trace.getActiveSpan()) return {};
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

const metadataGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** The trace context an event's metadata carries (its append's), or null. */
export function contextOfEvent(metadata: Record<string, unknown>): Context | null {
  if (!running || typeof metadata.traceparent !== 'string') return null;
  const extracted = propagation.extract(ROOT_CONTEXT, metadata, metadataGetter);
  return trace.getSpanContext(extracted) ? extracted : null;
}

/** Links to the traces of the events a batch handles (at most `max`: a batch may hold hundreds). */
export function linksToEvents(events: ReadonlyArray<{ metadata: Record<string, unknown> }>, max = 32): Link[] {
  if (!running) return [];
  const links: Link[] = [];
  for (const event of events) {
    const parent = contextOfEvent(event.metadata);
    const spanContext = parent && trace.getSpanContext(parent);
    if (spanContext) links.push({ context: spanContext });
    if (links.length >= max) break;
  }
  return links;
}

/**
 * A reaction to one event continues the trace of the append that wrote the event (its parent
 * is the append span), so one trace runs from a request through its command and append to the
 * reaction's commands; it links the lane's batch span it ran in. A reaction to several events
 * at once is a child of the batch and links each event's trace instead.
 */
export function inReaction<T>(
  reactor: string,
  events: ReadonlyArray<{ id: string; type: string; metadata: Record<string, unknown> }>,
  fn: () => Promise<T>,
): Promise<T> {
  if (!running || events.length === 0) return fn();
  const attributes = {
    'reactor.name': reactor,
    'event.id': events[0].id,
    'event.type': [...new Set(events.map((e) => e.type))].join(', '),
    'reactor.event_count': events.length,
  };
  const parent = events.length === 1 ? contextOfEvent(events[0].metadata) : null;
  if (!parent) return inSpan(`react ${reactor}`, attributes, fn, { links: linksToEvents(events) });
  const batch = trace.getActiveSpan()?.spanContext();
  return inSpan(`react ${reactor}`, attributes, fn, { parent, links: batch ? [{ context: batch }] : [] });
}

/**
 * The AI SDK's own spans (`ai.generateText`, `ai.streamText` and their provider calls, with
 * model, tokens and finish reason), off without tracing. Prompts and replies are not recorded:
 * they hold tenants' documents and would leave them in the tracing backend.
 */
export function modelTelemetry(functionId: string, metadata: Record<string, string> = {}) {
  if (!running) return undefined;
  return {
    isEnabled: true,
    functionId,
    metadata,
    recordInputs: false,
    recordOutputs: false,
    tracer: running.provider.getTracer('ai'),
  };
}
