import { Client, Pool, defaults, type ClientConfig, type PoolClient } from 'pg';
// Relative, not '@noetl/config': Jest's globalSetup loads migrate -> data-source -> here outside the module mapper.
import { parseDatabaseUrl, type DatabaseHost, type DatabaseUrl } from '../../config/src/database-url';
import { isConnectionLoss } from './db-errors';

/**
 * libpq's multi-host connect (`h1:5432,h2:5433`, `target_session_attrs`) for
 * node-postgres, which has none (issue 29): hand-written because pg parses one
 * host, and no maintained package does this (brianc/node-postgres#3643 is an
 * open pull request). `parseDatabaseUrl` (libs/config) reads the URL; this
 * file connects.
 *
 * A chooser per URL remembers which host last took a session of the kind
 * asked for, so in the steady state a connection goes straight to the
 * primary and costs one extra statement (the check). A connect that fails,
 * or lands on a session that is read-only (a standby, a server with
 * `default_transaction_read_only`), moves the chooser to the next host and
 * fails; the pool's checkout (`MultiHostPool`) and `connectClient` then try
 * again, so a failover costs callers nothing but the wait for a writable host.
 */
class HostChooser {
  private current = 0;

  constructor(readonly url: DatabaseUrl) {}

  /** The host to try now. */
  next(): DatabaseHost {
    return this.url.hosts[this.current % this.url.hosts.length]!;
  }

  /** `host` failed (unreachable, or not writable): the next connect tries the one after it. */
  failed(host: DatabaseHost): void {
    const index = this.url.hosts.indexOf(host);
    if (index === this.current % this.url.hosts.length) this.current = index + 1;
  }
}

/** One chooser per URL in the process: the pool, the role check and a dedicated connection learn the primary from each other. */
const choosers = new Map<string, HostChooser>();

function chooserFor(url: string): HostChooser {
  let chooser = choosers.get(url);
  if (!chooser) {
    chooser = new HostChooser(parseDatabaseUrl(url));
    choosers.set(url, chooser);
  }
  return chooser;
}

/** What pg's Client keeps of its config and reads as it connects (not in its types). */
interface ClientInternals {
  connectionParameters: { host: string; port: number };
}

/** The session is not what target_session_attrs asks for: SQLSTATE 25006 (read_only_sql_transaction), so it is recycled like one. */
export class SessionNotWritableError extends Error {
  override readonly name = 'SessionNotWritableError';
  readonly code = '25006';

  constructor(host: DatabaseHost, attrs: string) {
    super(
      `${host.host}:${host.port} is not ${attrs === 'primary' ? 'a primary' : 'writable'} (target_session_attrs=${attrs}); trying the next host`,
    );
  }
}

/** What `target_session_attrs` asks of a session, asked of it: libpq's checks (`SHOW transaction_read_only`, `pg_is_in_recovery()`). */
async function acceptable(client: Client, attrs: DatabaseUrl['targetSessionAttrs']): Promise<boolean> {
  if (attrs === 'any') return true;
  const { rows } = await client.query<{ read_only: string; recovery: boolean }>(
    `SELECT current_setting('transaction_read_only') AS read_only, pg_catalog.pg_is_in_recovery() AS recovery`,
  );
  const [row] = rows;
  return attrs === 'primary' ? row?.recovery === false : row?.read_only === 'off';
}

/** A pg Client class whose `connect` picks the host of `url` (a multi-host URL) its chooser says, and checks the session. */
export function multiHostClientClass(url: string): typeof Client {
  const chooser = chooserFor(url);
  const { targetSessionAttrs } = chooser.url;
  return class MultiHostClient extends Client {
    override connect(): Promise<Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: Client) => void)): void;
    override connect(callback?: ((err: Error) => void) | ((err: null, c: Client) => void)): Promise<Client> | void {
      const connected = this.connectChosen().then(() => this as Client);
      if (!callback) return connected;
      const done = callback as (err: Error | null, c?: Client) => void;
      connected.then(
        (client) => done(null, client),
        (error: Error) => done(error),
      );
    }

    private async connectChosen(): Promise<void> {
      // pg-pool listens for `error` only once connect() called back; the session check runs before, and a
      // server that goes then (a failover) would emit `error` with no listener and kill the process. The
      // query or connect that fails still fails (and the same guard is on every pool client: database.ts).
      this.on('error', () => undefined);
      const host = chooser.next();
      // Client's constructor took its host from the URL's first host; the chosen one replaces it before the socket opens.
      this.host = host.host;
      this.port = host.port;
      Object.assign((this as this & ClientInternals).connectionParameters, { host: host.host, port: host.port });
      try {
        await super.connect();
        if (!(await acceptable(this, targetSessionAttrs))) throw new SessionNotWritableError(host, targetSessionAttrs);
      } catch (error) {
        chooser.failed(host);
        await this.end().catch(() => undefined);
        throw error;
      }
    }
  };
}

/** How often a connect is tried before its failure is the caller's: every host twice (one may be mid-promotion). */
function connectAttempts(url: string): number {
  return chooserFor(url).url.hosts.length * 2;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Between connect attempts: a promotion takes a second or two, so the attempts spread over a few. */
const RETRY_PAUSE_MS = 250;

/**
 * A pg Pool whose checkout tries again when the connect failed for a reason
 * another host (or the same one a moment later) may not have: nothing ran
 * on a connection that never connected, so this is always safe.
 */
export function multiHostPoolClass(url: string): typeof Pool {
  const attempts = connectAttempts(url);
  return class MultiHostPool extends Pool {
    override connect(): Promise<PoolClient>;
    override connect(callback: (err: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void): void;
    override connect(
      callback?: (err: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void,
    ): Promise<PoolClient> | void {
      const checkout = async (): Promise<PoolClient> => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await super.connect();
          } catch (error) {
            if (attempt >= attempts || !isConnectionLoss(error) || this.ending) throw error;
            await pause(RETRY_PAUSE_MS * attempt);
          }
        }
      };
      const client = checkout();
      if (!callback) return client;
      client.then(
        (c) => callback(undefined, c, (release) => c.release(release as Error | boolean | undefined)),
        (error: Error) => callback(error, undefined, () => undefined),
      );
    }
  };
}

/** What TypeORM takes as its `driver` for a multi-host URL: pg with the pool above (whose clients are `multiHostClientClass`'s). */
export function multiHostDriver(url: string): { Pool: typeof Pool; defaults: typeof defaults } {
  return { Pool: multiHostPoolClass(url), defaults };
}

/** What pg is given for `url`, one host or several: the first host's URL (pg and TypeORM read it) and, for several, the Client class that chooses. */
export function pgConnection(url: string): { connectionString: string; Client?: typeof Client; multiHost: boolean } {
  const parsed = parseDatabaseUrl(url);
  if (!parsed.multiHost) return { connectionString: url, multiHost: false };
  return { connectionString: parsed.forHost(parsed.hosts[0]!), Client: multiHostClientClass(url), multiHost: true };
}

/**
 * A connected pg Client for `url` (one host or several), outside any pool:
 * the role check, the harness's checks. Retries as the pool's checkout does.
 */
export async function connectClient(url: string, config: Omit<ClientConfig, 'connectionString'> = {}): Promise<Client> {
  const { connectionString, Client: ClientClass = Client, multiHost } = pgConnection(url);
  const attempts = multiHost ? connectAttempts(url) : 1;
  for (let attempt = 1; ; attempt++) {
    const client = new ClientClass({ ...config, connectionString });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (attempt >= attempts || !isConnectionLoss(error)) throw error;
      await pause(RETRY_PAUSE_MS * attempt);
    }
  }
}
