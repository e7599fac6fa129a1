import { CallError, isJsonObject, toCallErrorInfo, toPlainJson, type Renderer } from '@noetl/dsl';
import type { JsonObject } from '@noetl/event-kernel';
import { request } from 'undici';

export interface KeychainDeps {
  render: Renderer;
  /** A stored credential's data (the caller adds it to the run's redaction set). */
  resolveCredential(name: string): Promise<Record<string, unknown>>;
  signal: AbortSignal;
  /** A token request's deadline (default 30 s). */
  requestTimeoutMs?: number;
}

/** The entry kinds a worker resolves; others fail the step saying so. */
const KINDS = ['credential', 'credential_ref', 'static', 'bearer', 'oauth2'] as const;

/**
 * Resolves a command's or frame's `keychain` (the playbook entries its spec reads, see
 * `keychainReferences`) at the worker, in declaration order, each entry's templates rendered
 * against `scope` plus the entries before it (DSL.md s7). An entry is:
 * - `credential: <name>` (any kind): the stored credential's data;
 * - `kind: static` with `map`: the rendered map;
 * - `kind: bearer` with `token`: `{access_token, token_type: Bearer}`;
 * - `kind: oauth2` with `endpoint` (and `method`, `headers`, `data`): the token endpoint's JSON
 *   answer, requested form-encoded (JSON when a Content-Type header says so).
 * Nothing is cached: each run resolves afresh. Returns `{name: data}`; throws CallError.
 */
export async function resolveKeychain(
  entries: unknown,
  scope: Record<string, unknown>,
  deps: KeychainDeps,
): Promise<Record<string, JsonObject>> {
  const keychain: Record<string, JsonObject> = {};
  if (!Array.isArray(entries)) return keychain;
  for (const raw of entries) {
    if (!isJsonObject(raw) || typeof raw['name'] !== 'string') continue;
    const { name, kind, ...rest } = raw;
    let spec: Record<string, unknown>;
    try {
      const rendered = await deps.render.renderValue(rest, { ...scope, keychain });
      spec = isJsonObject(toPlainJson(rendered)) ? (toPlainJson(rendered) as JsonObject) : {};
    } catch (error) {
      const info = toCallErrorInfo(error);
      throw new CallError({ ...info, message: `keychain entry "${name}": ${info.message}` });
    }
    keychain[name] = await resolveEntry(name, typeof kind === 'string' ? kind : undefined, spec, deps);
  }
  return keychain;
}

async function resolveEntry(
  name: string,
  kind: string | undefined,
  spec: Record<string, unknown>,
  deps: KeychainDeps,
): Promise<JsonObject> {
  const credential =
    typeof spec['credential'] === 'string' ? spec['credential'] : typeof spec['key'] === 'string' ? spec['key'] : undefined;
  if (credential !== undefined) {
    try {
      return jsonObject(await deps.resolveCredential(credential));
    } catch (error) {
      if (error instanceof CallError) throw error;
      throw failure(name, `cannot resolve credential "${credential}": ${error instanceof Error ? error.message : String(error)}`, false);
    }
  }
  switch (kind) {
    case 'static':
      if (!isRecord(spec['map'])) throw failure(name, 'a static entry needs a "map"', false);
      return jsonObject(spec['map']);
    case 'bearer':
      if (typeof spec['token'] !== 'string' || spec['token'] === '')
        throw failure(name, 'a bearer entry needs a "token" (or a "credential")', false);
      return { access_token: spec['token'], token_type: 'Bearer' };
    case 'oauth2':
      return requestToken(name, spec, deps);
    default:
      throw failure(
        name,
        `kind "${kind ?? ''}" cannot be resolved by this runtime (use one of ${KINDS.join(', ')}, or name a "credential")`,
        false,
      );
  }
}

async function requestToken(name: string, spec: Record<string, unknown>, deps: KeychainDeps): Promise<JsonObject> {
  const endpoint = spec['endpoint'] ?? spec['url'];
  if (typeof endpoint !== 'string' || endpoint === '') throw failure(name, 'an oauth2 entry needs an "endpoint"', false);
  const headers: Record<string, string> = {};
  if (isRecord(spec['headers'])) for (const [key, value] of Object.entries(spec['headers'])) headers[key.toLowerCase()] = String(value);
  const data = isRecord(spec['data']) ? spec['data'] : {};
  const json = (headers['content-type'] ?? '').includes('json');
  headers['content-type'] ??= 'application/x-www-form-urlencoded';
  headers['accept'] ??= 'application/json';
  const body = json
    ? JSON.stringify(data)
    : new URLSearchParams(
        Object.entries(data).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      ).toString();
  let where: string;
  try {
    where = new URL(endpoint).host;
  } catch {
    throw failure(name, 'the oauth2 "endpoint" is not a URL', false);
  }
  let status: number;
  let text: string;
  try {
    const response = await request(endpoint, {
      method: typeof spec['method'] === 'string' ? (spec['method'].toUpperCase() as 'POST') : 'POST',
      headers,
      body,
      signal: AbortSignal.any([deps.signal, AbortSignal.timeout(deps.requestTimeoutMs ?? 30_000)]),
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    if (deps.signal.aborted) throw new CallError({ kind: 'cancelled', message: 'cancelled', retryable: false });
    throw new CallError({
      kind: 'connection',
      message: `keychain entry "${name}": the token request to ${where} failed: ${error instanceof Error ? error.message : String(error)}`,
      retryable: true,
    });
  }
  // The answer is a token: a message never quotes it.
  if (status >= 400) throw failure(name, `the token request to ${where} answered HTTP ${status}`, status >= 500 || status === 429);
  try {
    return jsonObject(JSON.parse(text) as unknown);
  } catch {
    throw failure(name, `the token request to ${where} did not answer a JSON object`, false);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonObject(value: unknown): JsonObject {
  const plain = toPlainJson(value);
  if (!isJsonObject(plain))
    throw new CallError({ kind: 'auth', message: 'a keychain entry resolved to something other than an object', retryable: false });
  return plain;
}

function failure(name: string, message: string, retryable: boolean): CallError {
  return new CallError({ kind: 'auth', message: `keychain entry "${name}": ${message}`, retryable, code: 'KEYCHAIN' });
}
