import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { migrate, startEmbeddedPostgres, type EmbeddedPostgres } from '../../libs/storage/src';
import { freePort } from '../support/cli-server-process';
import type { Role } from './cluster';
import { waitFor } from '../support/wait-for';

const NATS_SERVER = '/usr/sbin/nats-server';
const REDIS_SERVER = 'redis-server';
const SINK_DATABASE = 'chaos_sink';

/** A service the harness owns and can take down and bring back on the same port and data. */
export interface RestartableService {
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export interface PostgresService extends RestartableService {
  /** The sink database beside the runtime's (postgres steps may not reach the runtime's own). */
  readonly sinkUrl: string;
}

export interface RedisService extends RestartableService {
  /** FLUSHALL: every BullMQ job and cache entry gone. */
  flush(): Promise<void>;
}

/** The harness's private PostgreSQL, NATS and Redis: none of them is the machine's shared service. */
export interface ChaosServices {
  postgres: PostgresService;
  nats: RestartableService;
  redis: RedisService;
  /**
   * Settings over the deployment's, per role, for services that need them
   * (a replica count, a proxy in front of the api at `apiPort`); called once
   * as the deployment starts. Default: none.
   */
  roleEnv?(apiPort: number): Promise<Partial<Record<Role, Record<string, string>>>>;
  close(): Promise<void>;
}

/** Starts the three services under `home` on free ports, migrates the runtime's database and creates the sink database. */
export async function startChaosServices(home: string): Promise<ChaosServices> {
  return withPostgresAndRedis(home, await startNatsServer(join(home, 'nats')));
}

/**
 * The services of `startChaosServices` with `nats` in place of its single
 * server (a scenario's clustered NATS): the same PostgreSQL and Redis, started under `home`.
 */
export async function withPostgresAndRedis(home: string, nats: RestartableService): Promise<ChaosServices> {
  const postgres = await startPostgres(join(home, 'postgres'));
  const redis = await startRedis(join(home, 'redis'));
  return {
    postgres,
    nats,
    redis,
    close: async () => {
      await Promise.all([nats.stop(), redis.stop()]);
      await postgres.stop();
    },
  };
}

async function startRedis(dir: string): Promise<RedisService> {
  const redis = await startDaemon(
    'redis-server',
    dir,
    (port, data) => [REDIS_SERVER, ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', data]],
    'redis',
  );
  return {
    ...redis,
    flush: async () => {
      const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await client.connect();
        await client.flushall();
      } finally {
        client.disconnect();
      }
    },
  };
}

async function startPostgres(home: string): Promise<PostgresService> {
  const port = await freePort();
  let server: EmbeddedPostgres = await startEmbeddedPostgres(home, { port, database: 'noetl' });
  const url = server.url;
  await migrate(url, 'up');
  const admin = new Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${SINK_DATABASE}`).catch(() => undefined);
  await admin.end();
  const sinkUrl = new URL(url);
  sinkUrl.pathname = `/${SINK_DATABASE}`;
  let running = true;
  return {
    url,
    sinkUrl: sinkUrl.toString(),
    stop: async () => {
      if (!running) return;
      running = false;
      await server.stop();
    },
    start: async () => {
      if (running) return;
      server = await startEmbeddedPostgres(home, { port, database: 'noetl' });
      running = true;
    },
  };
}

/** A private nats-server with JetStream, its store in `dir`: stopped and started again on the same port and store. */
export function startNatsServer(dir: string): Promise<RestartableService> {
  return startDaemon(
    'nats-server',
    dir,
    (port, store) => [NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store]],
    'nats',
  );
}

/** A daemon the harness can also SIGKILL (no shutdown of its own: a node lost). */
export interface KillableService extends RestartableService {
  kill(): Promise<void>;
}

/** A server binary run in the foreground on a fixed port and directory; restarted on the same ones. */
export async function startDaemon(
  label: string,
  dir: string,
  command: (port: number, dir: string) => [string, string[]],
  scheme: string,
): Promise<KillableService> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  let child: ChildProcess | undefined;
  let output = '';
  const start = async (): Promise<void> => {
    if (child) return;
    const [binary, args] = command(port, dir);
    const started = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer): void => void (output = (output + chunk.toString('utf8')).slice(-8_000));
    started.stdout?.on('data', keep);
    started.stderr?.on('data', keep);
    child = started;
    await waitFor(() => listening(port), { timeoutMs: 20_000, intervalMs: 50, description: `${label} on :${port}` }).catch(
      (error: unknown) => {
        throw new Error(`${String(error)}\n--- ${label} output ---\n${output}`);
      },
    );
  };
  const stopWith = async (signal: NodeJS.Signals): Promise<void> => {
    const running = child;
    if (!running) return;
    child = undefined;
    if (running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(signal);
    const timer = setTimeout(() => running.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  await start();
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    start,
    stop: () => stopWith('SIGTERM'),
    kill: () => stopWith('SIGKILL'),
  };
}

async function listening(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
