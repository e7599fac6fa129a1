import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@noetl/storage';

const READY_MS = 60_000;

/** A `noetl server` process of the built CLI, every role, on a database: how users run the runtime and start work over REST. */
export interface NoetlServer {
  url: string;
  /** Its peak resident set so far (VmHWM, KiB): the process that does the work. */
  peakRssKb(): number;
  stop(): Promise<void>;
}

/** Starts `noetl server` (auth off: the bench is its only client) on a free loopback port and resolves once it answers ready. */
export async function startNoetlServer(databaseUrl: string, env: Record<string, string | undefined>): Promise<NoetlServer> {
  const port = await freePort();
  const home = mkdtempSync(join(tmpdir(), 'noetl-peers-'));
  const child = spawn(process.execPath, [join(process.cwd(), 'dist', 'apps', 'cli', 'src', 'main.js'), 'server'], {
    env: {
      ...env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      NOETL_HOME: home,
      NOETL_AUTH: 'off',
      NOETL_RATE_LIMIT: '0',
      NOETL_PYTHON_LEDGER_ACCESS: 'allow',
      LOG_LEVEL: env['LOG_LEVEL'] ?? 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`noetl server exited (code ${child.exitCode}) before it was ready`);
    if (
      (await fetch(`${url}/health/ready`).then(
        (response) => response.status,
        () => 0,
      )) === 200
    )
      break;
    if (Date.now() > deadline) {
      await stopChild(child, exited);
      throw new Error(`noetl server was not ready within ${READY_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    peakRssKb: () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0),
    stop: async () => {
      await stopChild(child, exited);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await exited;
}
