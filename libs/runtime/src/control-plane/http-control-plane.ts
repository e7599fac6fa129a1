import type { WorkerReport } from '@noetl/storage';
import type { DatabaseIdentity } from '@noetl/tools';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, type Dispatcher, request } from 'undici';
import { RuntimeError, type RuntimeErrorCode } from '../runtime-error';
import { traceparentOf } from '../tracing/tracing';
import type {
  ChildOutcomeRequest,
  ChildOutcomeView,
  ClaimedCommand,
  ClaimedFrame,
  ClaimRequest,
  CommitFrameRequest,
  CompleteRequest,
  ControlPlane,
  CredentialRequest,
  FailRequest,
  HeartbeatResult,
  LeaseRequest,
  NestedChildRequest,
  PartialRequest,
  RecordCallsRequest,
  ResolvedCredential,
  StartChildRequest,
  StreamBacklog,
  Holder,
} from './control-plane';

export interface HttpControlPlaneOptions {
  /** Per attempt, connect to last body byte (default 10 s). */
  timeoutMs?: number;
  /** Tries per call when the transport fails or the server answers 5xx (default 4). */
  attempts?: number;
  /** Pause before the first retry, doubled for each next one (default 200 ms). */
  retryDelayMs?: number;
  /** Send through this dispatcher (not closed by `close()`). Default: an own keep-alive Agent. */
  dispatcher?: Dispatcher;
  /** The worker's API key (`worker` role): sent as `Authorization: Bearer`. Without it the API must run with NOETL_AUTH=off. */
  apiKey?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_ATTEMPTS = 4;
const DEFAULT_RETRY_DELAY_MS = 200;

/**
 * Every code the API may answer with that the worker handles as it would the
 * in-process adapter's RuntimeError. A Record so a new RuntimeErrorCode fails
 * the build until it is listed here.
 */
const RUNTIME_ERROR_CODES: Record<RuntimeErrorCode, true> = {
  not_found: true,
  invalid_playbook: true,
  invalid_payload: true,
  invalid_request: true,
  already_terminal: true,
  execution_running: true,
  already_claimed: true,
  lease_lost: true,
  tool_not_allowed: true,
  wrong_pool: true,
  credential_not_allowed: true,
  credentials_locked: true,
  unauthenticated: true,
  forbidden: true,
  limit_exceeded: true,
  ledger_corrupt: true,
};

interface Answer {
  status: number;
  text: string;
}

/**
 * The worker's control plane over the API's REST endpoints (DESIGN.md s6),
 * for a worker in its own process. An error body with a RuntimeErrorCode
 * becomes that RuntimeError, so the worker cannot tell this adapter from the
 * in-process one. Every call is idempotent for the lease holder, so transport
 * failures and 5xx are retried with backoff before a plain Error naming the
 * URL is thrown.
 */
export class HttpControlPlane implements ControlPlane {
  private readonly baseUrl: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownAgent?: Agent;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly headers: Record<string, string>;

  /** `baseUrl`: the API's origin (and path prefix, if any), e.g. `http://noetl-api:8082`. */
  constructor(baseUrl: string, options: HttpControlPlaneOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    if (options.dispatcher) {
      this.dispatcher = options.dispatcher;
    } else {
      this.ownAgent = new Agent();
      this.dispatcher = this.ownAgent;
    }
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.attempts = Math.max(1, options.attempts ?? DEFAULT_ATTEMPTS);
    this.retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
    this.headers = {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    };
  }

  claim(commandId: string, request: ClaimRequest): Promise<ClaimedCommand> {
    return this.post(commandPath(commandId, 'claim'), request, isClaimedCommand);
  }

  heartbeat(commandId: string, request: LeaseRequest): Promise<HeartbeatResult> {
    return this.post(commandPath(commandId, 'heartbeat'), request, isHeartbeatResult);
  }

  async complete(commandId: string, request: CompleteRequest): Promise<void> {
    await this.post(commandPath(commandId, 'complete'), request, anyBody);
  }

  async fail(commandId: string, request: FailRequest): Promise<void> {
    await this.post(commandPath(commandId, 'fail'), request, anyBody);
  }

  startChild(commandId: string, request: StartChildRequest): Promise<{ execution_id: string }> {
    return this.post(commandPath(commandId, 'child'), request, isStartedChild);
  }

  async release(commandId: string, request: LeaseRequest): Promise<void> {
    await this.post(commandPath(commandId, 'release'), request, anyBody);
  }

  async reportWorker({ worker_id: workerId, ...report }: WorkerReport): Promise<void> {
    await this.post(`/api/workers/${encodeURIComponent(workerId)}/heartbeat`, report, anyBody);
  }

  async releaseFrame(frameId: string, request: LeaseRequest): Promise<void> {
    await this.post(framePath(frameId, 'release'), request, anyBody);
  }

  /** An API from before backpressure answers no `pending_chunks`: nothing is known to be pending, and the stream goes on unthrottled. */
  async reportPartial(commandId: string, request: PartialRequest): Promise<StreamBacklog> {
    const answer = await this.post(commandPath(commandId, 'partial'), request, anyBody);
    return { pending_chunks: isObject(answer) && typeof answer.pending_chunks === 'number' ? answer.pending_chunks : 0 };
  }

  streamBacklog(commandId: string, request: Holder): Promise<StreamBacklog> {
    return this.post(commandPath(commandId, 'stream-backlog'), request, isStreamBacklog);
  }

  async recordCalls(commandId: string, request: RecordCallsRequest): Promise<void> {
    await this.post('/api/events', { command_id: commandId, ...request }, anyBody);
  }

  /** Asked at each new connection of a postgres step: the ledger's server may restart (a new start time) while the worker runs. */
  async ledgerIdentity(): Promise<DatabaseIdentity> {
    const answer = await this.call('GET', '/api/workers/ledger', undefined, isLedgerIdentity);
    return { cluster: answer.cluster, startedAt: answer.started_at, oid: answer.oid, name: answer.name };
  }

  resolveCredential(commandId: string, request: CredentialRequest): Promise<ResolvedCredential> {
    return this.post(commandPath(commandId, 'credential'), request, isResolvedCredential);
  }

  async claimFrame(stageId: string, request: ClaimRequest): Promise<ClaimedFrame | null> {
    const answer = await this.post(`/api/stages/${encodeURIComponent(stageId)}/frames/claim`, request, isFrameClaim);
    return answer.frame;
  }

  heartbeatFrame(frameId: string, request: LeaseRequest): Promise<HeartbeatResult> {
    return this.post(framePath(frameId, 'heartbeat'), request, isHeartbeatResult);
  }

  async commitFrame(frameId: string, request: CommitFrameRequest): Promise<void> {
    await this.post(framePath(frameId, 'commit'), request, anyBody);
  }

  async failFrame(frameId: string, request: FailRequest): Promise<void> {
    await this.post(framePath(frameId, 'fail'), request, anyBody);
  }

  resolveFrameCredential(frameId: string, request: CredentialRequest): Promise<ResolvedCredential> {
    return this.post(framePath(frameId, 'credential'), request, isResolvedCredential);
  }

  startNestedChild(request: NestedChildRequest): Promise<{ execution_id: string }> {
    return this.post('/api/children', request, isStartedChild);
  }

  childOutcome(executionId: string, request: ChildOutcomeRequest): Promise<ChildOutcomeView> {
    return this.post(`/api/children/${encodeURIComponent(executionId)}/outcome`, request, isChildOutcome);
  }

  /** Closes the keep-alive connections of the own Agent (a given dispatcher is the caller's). */
  async close(): Promise<void> {
    await this.ownAgent?.close();
  }

  private post<T>(path: string, body: object, accepts: (value: unknown) => value is T): Promise<T> {
    return this.call('POST', path, JSON.stringify(body), accepts);
  }

  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    accepts: (value: unknown) => value is T,
  ): Promise<T> {
    const url = `${this.baseUrl}${path}`;
    const answer = await this.send(method, url, body);
    if (answer.status >= 400) throw errorFromAnswer(method, url, answer, this.headers.authorization !== undefined);
    const value = parseJson(answer.text);
    // The body is not quoted: it may hold credential data.
    if (!accepts(value)) throw new Error(`${method} ${url} answered ${answer.status} with a body of an unexpected shape`);
    return value;
  }

  /** One call with retries; returns the first answer below 500. */
  private async send(method: 'GET' | 'POST', url: string, body: string | undefined): Promise<Answer> {
    for (let attempt = 1; ; attempt++) {
      let failure: string;
      let cause: unknown;
      const timeout = AbortSignal.timeout(this.timeoutMs);
      try {
        const traceparent = traceparentOf();
        const response = await request(url, {
          method,
          // The W3C trace context of the worker's span: the api's span for the call is its child.
          headers: traceparent ? { ...this.headers, traceparent } : this.headers,
          body,
          dispatcher: this.dispatcher,
          signal: timeout,
        });
        const text = await response.body.text();
        if (response.statusCode < 500) return { status: response.statusCode, text };
        failure = `HTTP ${response.statusCode}${describeErrorBody(text)}`;
      } catch (error) {
        failure = timeout.aborted ? `timed out after ${this.timeoutMs} ms` : (error as Error).message;
        cause = error;
      }
      if (attempt >= this.attempts) {
        throw new Error(`${method} ${url} failed after ${attempt} attempt(s): ${failure}`, { cause });
      }
      await delay(this.retryDelayMs * 2 ** (attempt - 1));
    }
  }
}

function commandPath(commandId: string, action: string): string {
  return `/api/commands/${encodeURIComponent(commandId)}/${action}`;
}

function framePath(frameId: string, action: string): string {
  return `/api/frames/${encodeURIComponent(frameId)}/${action}`;
}

function isChildOutcome(value: unknown): value is ChildOutcomeView {
  return (
    isObject(value) && (value.status === 'RUNNING' || value.status === 'COMPLETED' || (value.status === 'FAILED' && isObject(value.error)))
  );
}

/** `POST /api/stages/{id}/frames/claim` answers `{frame: ClaimedFrame | null}`. */
function isFrameClaim(value: unknown): value is { frame: ClaimedFrame | null } {
  if (!isObject(value) || !('frame' in value)) return false;
  const frame = value.frame;
  return (
    frame === null ||
    (isObject(frame) &&
      typeof frame.frame_id === 'string' &&
      typeof frame.lease_token === 'string' &&
      Array.isArray(frame.rows) &&
      isObject(frame.spec) &&
      isObject(frame.scope))
  );
}

function errorFromAnswer(method: string, url: string, answer: Answer, presentsKey: boolean): Error {
  const body = parseJson(answer.text);
  if (isObject(body) && isRuntimeErrorCode(body.code)) {
    const message = typeof body.message === 'string' ? body.message : body.code;
    const hint =
      body.code === 'unauthenticated' && !presentsKey
        ? ' (this process presents no key: set NOETL_API_KEY, or keep a worker key in NOETL_HOME/worker.key)'
        : '';
    return new RuntimeError(body.code, `${message}${hint}`, body.details);
  }
  return new Error(`${method} ${url} answered HTTP ${answer.status}${describeErrorBody(answer.text)}`);
}

function isRuntimeErrorCode(code: unknown): code is RuntimeErrorCode {
  return typeof code === 'string' && Object.hasOwn(RUNTIME_ERROR_CODES, code);
}

/** `: code: message` from an error body of the API's shape; nothing for any other body. */
function describeErrorBody(text: string): string {
  const body = parseJson(text);
  if (!isObject(body)) return '';
  const parts = [body.code, body.message].filter((part) => typeof part === 'string');
  return parts.length ? `: ${parts.join(': ')}` : '';
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function anyBody(_value: unknown): _value is unknown {
  return true;
}

function isClaimedCommand(value: unknown): value is ClaimedCommand {
  return (
    isObject(value) &&
    typeof value.command_id === 'string' &&
    typeof value.lease_token === 'string' &&
    typeof value.execution_id === 'string' &&
    typeof value.lease_until === 'string' &&
    isObject(value.spec) &&
    isObject(value.scope) &&
    isObject(value.result_views)
  );
}

function isHeartbeatResult(value: unknown): value is HeartbeatResult {
  return isObject(value) && typeof value.lease_until === 'string' && typeof value.cancelled === 'boolean';
}

function isStreamBacklog(value: unknown): value is StreamBacklog {
  return isObject(value) && typeof value.pending_chunks === 'number';
}

function isStartedChild(value: unknown): value is { execution_id: string } {
  return isObject(value) && typeof value.execution_id === 'string';
}

/** `GET /api/workers/ledger` answers the identity in the API's snake_case. */
function isLedgerIdentity(value: unknown): value is { cluster: string | null; started_at: string; oid: string; name: string } {
  return (
    isObject(value) &&
    (value.cluster === null || typeof value.cluster === 'string') &&
    typeof value.started_at === 'string' &&
    typeof value.oid === 'string' &&
    typeof value.name === 'string'
  );
}

function isResolvedCredential(value: unknown): value is ResolvedCredential {
  return isObject(value) && typeof value.type === 'string' && isObject(value.data);
}
