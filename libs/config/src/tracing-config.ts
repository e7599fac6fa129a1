import { oneOf, url, type Env } from './env-values';

/** Where and how spans are exported (README "Observability"). */
export interface TracingConfig {
  /** The OTLP/HTTP traces URL, e.g. `http://collector:4318/v1/traces`. */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** `service.name` of this process's spans; absent: `noetl-<roles>`. */
  serviceName?: string;
}

/**
 * Traces are off unless configured, as the OpenTelemetry spec's variables
 * say: OTEL_TRACES_EXPORTER=otlp, or an OTLP endpoint set (and not
 * OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true). The endpoint and
 * protocol follow the spec: a signal-specific URL is used as is, the
 * general one gets `/v1/traces`; `http/protobuf` by default.
 */
export function tracing(env: Env): TracingConfig | undefined {
  const exporter = oneOf(env, 'OTEL_TRACES_EXPORTER', ['otlp', 'none'] as const, 'none');
  const tracesUrl = url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']);
  const baseUrl = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  const disabled = oneOf(env, 'OTEL_SDK_DISABLED', ['true', 'false'] as const, 'false') === 'true';
  const protocols = ['http/protobuf', 'http/json'] as const;
  const protocol = oneOf(
    env,
    'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    protocols,
    oneOf(env, 'OTEL_EXPORTER_OTLP_PROTOCOL', protocols, 'http/protobuf'),
  );
  const serviceName = env.OTEL_SERVICE_NAME?.trim();
  const configured = env.OTEL_TRACES_EXPORTER?.trim() ? exporter === 'otlp' : Boolean(tracesUrl ?? baseUrl);
  if (disabled || !configured) return undefined;
  return {
    url: tracesUrl ?? `${(baseUrl ?? 'http://localhost:4318').replace(/\/+$/, '')}/v1/traces`,
    protocol,
    ...(serviceName ? { serviceName } : {}),
  };
}
