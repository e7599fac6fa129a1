import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as the collector received it, with the `service.name` of the process that sent it. */
export interface CollectedSpan {
  service: string;
  pid: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startNanos: bigint;
  endNanos: bigint;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number; message?: string };
}

export interface OtlpCollector {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT, e.g. `http://127.0.0.1:4318`. */
  url: string;
  spans(): CollectedSpan[];
  close(): Promise<void>;
}

/** OTLP/JSON as the spec encodes it: ids as hex, times as decimal strings, attribute values by type. */
interface OtlpJsonValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpJsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: { key: string; value: OtlpJsonValue }[];
  status?: { code?: number; message?: string };
}
interface OtlpJsonRequest {
  resourceSpans?: { resource?: { attributes?: { key: string; value: OtlpJsonValue }[] }; scopeSpans?: { spans?: OtlpJsonSpan[] }[] }[];
}

/**
 * A tiny OpenTelemetry collector on loopback: it takes OTLP/HTTP with JSON
 * bodies (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) on `/v1/traces` and keeps
 * every span, for a spec to read back. Anything else is answered 415/404.
 */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const received: CollectedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (!String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      received.push(...spansOf(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpJsonRequest));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function spansOf(request: OtlpJsonRequest): CollectedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service: String(resource['service.name']),
        pid: Number(resource['process.pid']),
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        startNanos: BigInt(span.startTimeUnixNano),
        endNanos: BigInt(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        status: span.status ?? {},
      })),
    );
  });
}

function attributesOf(list: { key: string; value: OtlpJsonValue }[] = []): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
  }
  return out;
}
