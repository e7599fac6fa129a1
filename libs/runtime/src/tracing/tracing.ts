import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { IdGenerator, TracerProvider } from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '@noetl/config';
import { executionSpanId, executionTraceId, stepRunSpanId } from './trace-ids';

/** Random ids, except for the one span being started under `choosing` (spans are started synchronously, so nothing else interleaves). */
class ChosenIds implements IdGenerator {
  private chosen?: { traceId: string; spanId: string };

  constructor(private readonly random: IdGenerator) {}

  choosing<T>(chosen: { traceId: string; spanId: string }, start: () => T): T {
    this.chosen = chosen;
    try {
      return start();
    } finally {
      this.chosen = undefined;
    }
  }

  generateTraceId(): string {
    return this.chosen?.traceId ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.chosen?.spanId ?? this.random.generateSpanId();
  }
}

/**
 * The process's OpenTelemetry traces (README "Observability"): off unless
 * configured, and then one trace per execution, whose ids every process
 * derives from the execution (trace-ids.ts). Off, every function here costs
 * one boolean test: the hot path pays nothing else.
 */
let tracer: Tracer | undefined;
let provider: TracerProvider | undefined;
let ids: ChosenIds;
let propagator: W3CTraceContextPropagator;

/**
 * Registers the exporter, the context manager and the W3C propagator; spans
 * are sent in batches until `stopTracing`. The SDK is loaded here, not with
 * this module: it takes ~90 ms to load, which a process without traces need not pay.
 */
export async function startTracing(config: TracingConfig, serviceName: string): Promise<void> {
  if (provider) return;
  const [{ AsyncLocalStorageContextManager }, core, sdk, { resourceFromAttributes }, exporters] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/resources'),
    config.protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  ids = new ChosenIds(new sdk.RandomIdGenerator());
  propagator = new core.W3CTraceContextPropagator();
  provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName ?? serviceName, 'process.pid': process.pid }),
    idGenerator: ids,
    spanProcessors: [
      new sdk.BatchSpanProcessor({ exporter: new exporters.OTLPTraceExporter({ url: config.url }), scheduledDelayMillis: 1000 }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(propagator);
  tracer = provider.getTracer('noetl');
}

/** Sends what is buffered and stops; a process calls it once its work stopped. */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  provider = undefined;
  tracer = undefined;
  await stopping?.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
}

export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

/** What code inside a span may say of it. */
export interface SpanHandle {
  set(attributes: Attributes): void;
  rename(name: string): void;
}

const NO_SPAN: SpanHandle = { set: () => undefined, rename: () => undefined };

/**
 * Runs `work` inside a span named `name`, child of `parent` (a traceparent
 * received over NATS or HTTP, or a span context every process derives, see
 * `stepRunContext`); the span ends with `work`, failed when it throws.
 */
export function inSpan<T>(
  name: string,
  parent: Context | undefined,
  attributes: Attributes,
  work: (span: SpanHandle) => Promise<T>,
): Promise<T> {
  if (!tracer) return work(NO_SPAN);
  return runInSpan(name, SpanKind.INTERNAL, parent ?? context.active(), attributes, work);
}

/** Runs `work` inside a server span for a request whose caller sent `traceparent` (the api serving a worker); `work` may rename it once routed. */
export function inServerSpan<T>(
  name: string,
  traceparent: string | undefined,
  attributes: Attributes,
  work: (span: SpanHandle) => Promise<T>,
): Promise<T> {
  if (!tracer || !traceparent) return work(NO_SPAN);
  return runInSpan(name, SpanKind.SERVER, contextOf(traceparent), attributes, work);
}

/** A span of `kind` under `parent` around `work`, active while it runs; it ends with `work`, failed when it throws. */
async function runInSpan<T>(
  name: string,
  kind: SpanKind,
  parent: Context,
  attributes: Attributes,
  work: (span: SpanHandle) => Promise<T>,
): Promise<T> {
  const span = tracer!.startSpan(name, { attributes, kind }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () =>
      work({ set: (more) => span.setAttributes(more), rename: (renamed) => span.updateName(renamed) }),
    );
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * A span whose work happened already, recorded with ids every process
 * agrees on: a step run's (child of its execution's span) or the
 * execution's own (the root). The scheduler records them when the step or
 * the execution ends, from the times in the ledger.
 */
export function recordSpan(span: {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  start: string;
  end: string;
  attributes: Attributes;
  error?: string;
}): void {
  if (!tracer) return;
  const parent = span.parentSpanId
    ? trace.setSpanContext(ROOT_CONTEXT, {
        traceId: span.traceId,
        spanId: span.parentSpanId,
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      })
    : ROOT_CONTEXT;
  const started = ids.choosing({ traceId: span.traceId, spanId: span.spanId }, () =>
    tracer!.startSpan(span.name, { attributes: span.attributes, startTime: new Date(span.start), root: !span.parentSpanId }, parent),
  );
  if (span.error !== undefined) started.setStatus({ code: SpanStatusCode.ERROR, message: span.error });
  started.end(new Date(span.end));
}

/** The span context of an execution's root span, as a parent. */
export function executionContext(executionId: string): Context | undefined {
  if (!tracer) return undefined;
  return remote(executionTraceId(executionId), executionSpanId(executionId));
}

/** The span context of one run of a step, as a parent (its span is recorded when the step ends). */
export function stepRunContext(executionId: string, runId: string): Context | undefined {
  if (!tracer) return undefined;
  return remote(executionTraceId(executionId), stepRunSpanId(runId));
}

/** The W3C `traceparent` of `of` (default: the active span), to send along a NATS message or an HTTP call; undefined when tracing is off. */
export function traceparentOf(of?: Context): string | undefined {
  if (!tracer) return undefined;
  const carrier: Record<string, string> = {};
  propagator.inject(of ?? context.active(), carrier, { set: (target, key, value) => (target[key] = value) });
  return carrier['traceparent'];
}

/** The context a received `traceparent` names; the empty context when tracing is off or there is none. */
export function contextOf(traceparent: string | undefined): Context {
  if (!tracer || !traceparent) return ROOT_CONTEXT;
  return propagator.extract(
    ROOT_CONTEXT,
    { traceparent },
    { get: (carrier, key) => carrier[key as 'traceparent'], keys: () => ['traceparent'] },
  );
}

function remote(traceId: string, spanId: string): Context {
  return trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
}

function failed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
