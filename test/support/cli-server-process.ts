import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readKeyFile } from '../../libs/config/src/key-files';
import { freePort } from '../../libs/storage/src/free-port';
import { SUPERUSER_PLAYBOOKS_ENV } from './postgres';
import { waitFor } from './wait-for';

const appMain = (app: string): string => join(__dirname, '..', '..', 'dist', 'apps', app, 'src', 'main.js');
const CLI_MAIN = appMain('cli');
const OUTPUT_KEPT = 20_000;

export interface CliServerProcess {
  /** e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The admin key the deployment's first api process left in its NOETL_HOME (auth on); undefined for a role without the api. */
  apiKey: string | undefined;
  pid: number;
  /** The process's stdout and stderr so far (the last 20 kB), for failure messages. */
  output(): string;
  /** Kills it with SIGKILL (a crash: no shutdown hook runs) and waits until it is gone. */
  crash(): Promise<void>;
  /** SIGTERM, then SIGKILL after 10 s; waits until it is gone, and tells how it ended (`killed`: it took the SIGKILL). */
  stop(): Promise<{ code: number | null; killed: boolean }>;
}

/**
 * `noetl server` from the built CLI (`dist/`, made by `npm run build`; this
 * builds nothing) as a child process on a free loopback port, resolved once
 * GET /health/ready answers 200. `env` adds to a clean environment: the
 * caller gives DATABASE_URL and any NOETL_* tuning. NOETL_HOME is a
 * directory of the database's own unless `env` names one, so a server
 * restarted on the same database finds the admin key it made at its first
 * start (`apiKey`). `onOutput` sees every chunk of its stdout and stderr (a
 * spec that checks all of its log lines).
 */
export function startCliServer(env: Record<string, string>, options: StartOptions = {}): Promise<CliServerProcess> {
  return startBuiltApp([CLI_MAIN, 'server'], 'noetl server', env, options);
}

/** A CLI command's run to its end: exit code, stdout, stderr. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `noetl <args>` from the built CLI in a clean environment plus `env`, to its exit (killed after `timeoutMs`). */
export async function runCli(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<CliRun> {
  if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: run \`npm run build\` before this spec`);
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    env: { ...inheritedEnv(), ...SUPERUSER_PLAYBOOKS_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/**
 * One role's own app (`node dist/apps/<role>/src/main.js`, as the image runs
 * it for a single role) as a child process, like `startCliServer`.
 */
export function startRoleApp(
  role: 'api' | 'scheduler' | 'worker' | 'projector',
  env: Record<string, string>,
  options: StartOptions = {},
): Promise<CliServerProcess> {
  return startBuiltApp([appMain(role)], `${role} app`, env, options);
}

interface StartOptions {
  onOutput?(chunk: string): void;
  /** What to wait for before resolving: `ready` (the default, /health/ready answers 200) or `live` (for a process expected not to become ready). */
  until?: 'ready' | 'live';
}

async function startBuiltApp(args: string[], label: string, env: Record<string, string>, options: StartOptions): Promise<CliServerProcess> {
  if (!existsSync(args[0]!)) {
    throw new Error(`${args[0]} is missing: run \`npm run build\` before this spec (it starts the built apps and builds nothing itself)`);
  }
  // A caller that restarts a server on the port its clients know gives PORT.
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const home = env.NOETL_HOME ?? homeOf(env.DATABASE_URL ?? label);
  const child = spawn(process.execPath, args, {
    env: { ...inheritedEnv(), ...SUPERUSER_PLAYBOOKS_ENV, PORT: String(port), NOETL_HOME: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
    options.onOutput?.(chunk.toString('utf8'));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;

  try {
    const until = options.until ?? 'ready';
    const ready = waitFor(async () => (await fetch(`${url}/health/${until}`)).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 100,
      description: `${label} on :${port} to be ${until}`,
    });
    await Promise.race([ready, exited.then(() => Promise.reject(new ExitedEarly(child)))]);
  } catch (error) {
    await killAndWait(child, exited, 'SIGKILL');
    throw new Error(`${String(error)}\n--- ${label} output ---\n${output}`);
  }

  return {
    url,
    apiKey: readKeyFile(home, 'admin'),
    pid: child.pid!,
    output: () => output,
    crash: () => killAndWait(child, exited, 'SIGKILL'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      return { code: child.exitCode, killed: child.signalCode === 'SIGKILL' };
    },
  };
}

class ExitedEarly extends Error {
  constructor(child: ChildProcess) {
    super(`the process exited before it was ready (code ${child.exitCode}, signal ${child.signalCode})`);
  }
}

async function killAndWait(child: ChildProcess, exited: Promise<void>, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  await exited;
}

/** The parent's environment without the runtime's own settings, so only what the spec gives configures the server. */
function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith('NOETL_') || ['DATABASE_URL', 'REDIS_URL', 'NATS_URL', 'PORT', 'LOG_LEVEL'].includes(key))
      continue;
    env[key] = value;
  }
  return env;
}

/** A private NOETL_HOME per database: the servers of one database share its admin key. */
function homeOf(databaseUrl: string): string {
  const home = join(tmpdir(), `noetl-e2e-${createHash('sha256').update(databaseUrl).digest('hex').slice(0, 12)}`);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return home;
}

export { freePort };
