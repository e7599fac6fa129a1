import { keyFilePath, type NoetlConfig, readKeyFile } from '@noetl/config';
import type { Json, JsonObject } from '@noetl/event-kernel';
import type {
  LedgerVerificationView,
  CatalogEntry,
  CredentialSummary,
  DeliveredSignal,
  EventPage,
  ExecutionDetail,
  ExecutionPage,
  ListEventsQuery,
  ListExecutionsQuery,
  RegisteredPlaybook,
  ReplayState,
  RerunRequest,
  ScheduleInput,
  ScheduleView,
  StartExecutionRequest,
  StartedExecution,
  TriggeredSchedule,
  WorkerView,
  PoolView,
} from '@noetl/runtime';
import type { Command } from 'commander';

/** An error answer of the server: its `{code, message, details?}` body (DESIGN.md s6). */
export class ServerError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** `details`, or the `errors` list of a rejected registration. */
    readonly details?: unknown,
  ) {
    super(`${code}: ${message} (HTTP ${status})`);
    this.name = 'ServerError';
  }
}

export class ServerUnreachableError extends Error {
  constructor(url: string, reason: string) {
    super(`no NoETL server is reachable at ${url} (${reason}); start one with \`npm run noetl -- server\` or pass --server <url>`);
    this.name = 'ServerUnreachableError';
  }
}

/** Error codes of a connection that never reached an HTTP server. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** The REST API of a running `noetl server`, as the client commands use it. */
export class ServerClient {
  constructor(
    readonly baseUrl: string,
    /** Sent as `Authorization: Bearer`; without one the server must run with NOETL_AUTH=off. */
    private readonly apiKey?: string,
    /** Where the key came from, or where none was found: said when the server answers 401. */
    private readonly keySource?: string,
  ) {}

  register(content: string): Promise<RegisteredPlaybook> {
    return this.call('POST', '/api/catalog/register', { content });
  }

  execute(req: StartExecutionRequest): Promise<StartedExecution> {
    return this.call('POST', '/api/execute', req);
  }

  executions(query: ListExecutionsQuery): Promise<ExecutionPage> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    return this.call('GET', `/api/executions${params.size ? `?${params.toString()}` : ''}`);
  }

  catalog(): Promise<{ entries: CatalogEntry[] }> {
    return this.call('GET', '/api/catalog');
  }

  credentials(): Promise<{ credentials: CredentialSummary[] }> {
    return this.call('GET', '/api/credentials');
  }

  execution(id: string): Promise<ExecutionDetail> {
    return this.call('GET', `/api/executions/${encodeURIComponent(id)}`);
  }

  events(id: string, query: ListEventsQuery): Promise<EventPage> {
    const params = new URLSearchParams();
    if (query.after !== undefined) params.set('after', query.after);
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    for (const type of query.type ?? []) params.append('type', type);
    const search = params.size ? `?${params.toString()}` : '';
    return this.call('GET', `/api/executions/${encodeURIComponent(id)}/events${search}`);
  }

  /** Replay: the execution as of `at` (an event id, else a time), its latest state when `at` is undefined. */
  replay(id: string, at?: string): Promise<ReplayState> {
    const params = new URLSearchParams({ execution_id: id });
    if (at !== undefined) params.set(/^\d+$/.test(at) ? 'as_of_event_id' : 'as_of_time', at);
    return this.call('GET', `/api/replay/state?${params.toString()}`);
  }

  /** Whether the execution's ledger is what was written (checksums, hash chain, its end). */
  verify(id: string): Promise<LedgerVerificationView> {
    return this.call('GET', `/api/executions/${encodeURIComponent(id)}/verify`);
  }

  workers(status?: WorkerView['status']): Promise<{ workers: WorkerView[]; pools: PoolView[] }> {
    return this.call('GET', `/api/workers${status !== undefined ? `?${new URLSearchParams({ status }).toString()}` : ''}`);
  }

  async cancel(id: string, reason?: string): Promise<void> {
    await this.call('POST', `/api/executions/${encodeURIComponent(id)}/cancel`, reason === undefined ? {} : { reason });
  }

  rerun(id: string, request: RerunRequest): Promise<StartedExecution> {
    return this.call('POST', `/api/executions/${encodeURIComponent(id)}/rerun`, request);
  }

  signal(id: string, name: string, payload: Json, idempotencyKey?: string): Promise<DeliveredSignal> {
    return this.call('POST', `/api/executions/${encodeURIComponent(id)}/signals/${encodeURIComponent(name)}`, {
      payload,
      ...(idempotencyKey !== undefined ? { idempotency_key: idempotencyKey } : {}),
    });
  }

  createSchedule(schedule: ScheduleInput): Promise<ScheduleView> {
    return this.call('POST', '/api/schedules', schedule);
  }

  schedules(path?: string): Promise<{ schedules: ScheduleView[] }> {
    return this.call('GET', `/api/schedules${path !== undefined ? `?${new URLSearchParams({ path }).toString()}` : ''}`);
  }

  updateSchedule(id: string, patch: ScheduleInput): Promise<ScheduleView> {
    return this.call('PATCH', `/api/schedules/${encodeURIComponent(id)}`, patch);
  }

  deleteSchedule(id: string): Promise<ScheduleView> {
    return this.call('DELETE', `/api/schedules/${encodeURIComponent(id)}`);
  }

  triggerSchedule(id: string): Promise<TriggeredSchedule> {
    return this.call('POST', `/api/schedules/${encodeURIComponent(id)}/trigger`, {});
  }

  private async call<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: JsonObject | StartExecutionRequest | RerunRequest | ScheduleInput,
  ): Promise<T> {
    // Loaded here, not at startup: `noetl help` needs no HTTP client.
    const { request } = await import('undici');
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(`${this.baseUrl}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== undefined && UNREACHABLE_CODES.has(code)) throw new ServerUnreachableError(this.baseUrl, (error as Error).message);
      throw error;
    }
    const text = await response.body.text();
    const parsed = parseJson(text);
    if (response.statusCode >= 400)
      throw toServerError(response.statusCode, parsed, text, response.statusCode === 401 ? this.keySource : undefined);
    return parsed as T;
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** `hint` follows the server's message: for a 401, where the key came from. */
function toServerError(status: number, body: unknown, text: string, hint?: string): ServerError {
  const withHint = (message: string) => (hint === undefined ? message : `${message}; ${hint}`);
  if (typeof body === 'object' && body !== null && 'code' in body && typeof body.code === 'string') {
    const { code, message, details, errors } = body as { code: string; message?: unknown; details?: unknown; errors?: unknown };
    return new ServerError(status, code, withHint(typeof message === 'string' ? message : ''), errors ?? details);
  }
  return new ServerError(status, `http_${status}`, withHint(text.slice(0, 500) || 'no body'));
}

/** `--server <url>` of a client command. */
export function addServerOption(command: Command): Command {
  return command.option('--server <url>', 'the NoETL server (default NOETL_SERVER_URL, else http://127.0.0.1:$PORT)');
}

/**
 * The server a client command talks to: `--server`, else NOETL_SERVER_URL,
 * else this machine on PORT; with NOETL_API_KEY, else the admin key a local
 * `noetl server` left in `$NOETL_HOME/admin.key`.
 */
export function serverClient(config: NoetlConfig, option: string | undefined): ServerClient {
  const url = (option ?? config.server?.url ?? `http://127.0.0.1:${config.http.port}`).replace(/\/+$/, '');
  const fromEnv = config.client.apiKey?.reveal();
  if (fromEnv !== undefined)
    return new ServerClient(url, fromEnv, 'the key in NOETL_API_KEY is not valid there (revoked, or of another deployment)');
  const file = keyFilePath(config.home, 'admin');
  const fromFile = readKeyFile(config.home, 'admin');
  if (fromFile !== undefined)
    return new ServerClient(url, fromFile, `the key in ${file} is not valid there (set NOETL_API_KEY to a key of that server)`);
  return new ServerClient(
    url,
    undefined,
    `no API key was found: NOETL_API_KEY is unset and ${file} does not exist (set NOETL_API_KEY; \`noetl keys create\` makes one)`,
  );
}
