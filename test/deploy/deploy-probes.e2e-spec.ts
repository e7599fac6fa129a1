import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '../support/cli-server-process';
import { requireNats, requireRedis } from '../support/services';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { generateApiKey } from '../../libs/runtime/src/auth/api-keys';
import { containerEnv, loadManifests, loadWorkloads, REPO_ROOT, type Workload } from './support/deploy-files';
import { readDockerfile } from './support/dockerfile';

// Four role processes booted from the built apps, and a migration of an empty database.
jest.setTimeout(120_000);

/**
 * The k8s/ manifests run for real, minus Kubernetes: each workload's
 * container is started the way its pod would start it, through the image's
 * entrypoint (docker/entrypoint.sh, with the real node and the built dist/),
 * with the environment its ConfigMap, Secret and env give it. Only what a
 * cluster would supply differently is replaced: the addresses of PostgreSQL,
 * Redis, NATS and the api Service, a free PORT, a tenant of this run.
 * Then every path the kubelet would probe (and Prometheus scrape) must answer
 * 200, the migration Job's command must migrate an empty database, and the
 * image's HEALTHCHECK command must tell a live role from a dead port.
 */
const ENTRYPOINT = join(REPO_ROOT, 'docker', 'entrypoint.sh');
/** The Secret noetl-keys as an operator fills it before installing (its placeholders are empty). */
const KEYS = { NOETL_BOOTSTRAP_ADMIN_KEY: generateApiKey(), NOETL_BOOTSTRAP_WORKER_KEY: generateApiKey() };
const manifests = loadManifests().map((m) =>
  m.kind === 'Secret' && m.name === 'noetl-keys' ? { ...m, doc: { ...m.doc, stringData: KEYS } } : m,
);
const workloads = loadWorkloads(manifests);
const OUTPUT_KEPT = 20_000;

interface Started {
  workload: string;
  port: number;
  /** Whether its environment held DATABASE_URL. */
  hasDatabaseUrl: boolean;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** A clean environment: node on PATH (the image's is /usr/local/bin), nothing of this process's NOETL_* settings. */
function baseEnv(): Record<string, string> {
  return { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: tmpdir(), LOG_LEVEL: 'warn' };
}

function runEntrypoint(name: string, env: Record<string, string>, args: string[] = []): Omit<Started, 'port' | 'hasDatabaseUrl'> {
  const child = spawn('/bin/sh', [ENTRYPOINT, ...args], { env: { ...baseEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { workload: name, child, output: () => output, exited };
}

async function stop(started: Omit<Started, 'port' | 'hasDatabaseUrl'>): Promise<void> {
  if (started.child.exitCode !== null || started.child.signalCode !== null) return;
  started.child.kill('SIGTERM');
  const timer = setTimeout(() => started.child.kill('SIGKILL'), 15_000);
  await started.exited;
  clearTimeout(timer);
}

async function status(port: number, path: string): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}${path}`)).status;
}

/** The paths the kubelet probes in a workload's pod, and Prometheus scrapes when annotated. */
function probedPaths(w: Workload): string[] {
  const container = w.pod.containers[0]!;
  const paths = [container.startupProbe, container.livenessProbe, container.readinessProbe].map((p) => p?.httpGet?.path);
  if (w.annotations['prometheus.io/scrape'] === 'true') paths.push(w.annotations['prometheus.io/path']);
  return [...new Set(paths.filter((p): p is string => p !== undefined))];
}

describe('the k8s/ workloads, started as their pods would start them', () => {
  let database: TestDatabase;
  let infrastructure: Record<string, string>;
  const running: Started[] = [];

  async function startWorkload(w: Workload, extra: Record<string, string>): Promise<Started> {
    const podName = w.podNames[w.podNames.length - 1]!;
    const port = await freePort();
    const env: Record<string, string> = {
      ...containerEnv(w.pod.containers[0]!, manifests, podName),
      ...infrastructure,
      PORT: String(port),
      ...extra,
    };
    // The database's address replaces the manifest's, and reaches no pod the manifest gives none (a worker's).
    if (!('DATABASE_URL' in containerEnv(w.pod.containers[0]!, manifests, podName))) delete env.DATABASE_URL;
    const started = {
      ...runEntrypoint(w.manifest.name, env, w.pod.containers[0]!.args ?? []),
      port,
      hasDatabaseUrl: 'DATABASE_URL' in env,
    };
    running.push(started);
    try {
      await Promise.race([
        waitFor(async () => (await status(port, '/health/ready')) === 200, {
          timeoutMs: 60_000,
          intervalMs: 100,
          description: `${w.manifest.name} ready on :${port}`,
        }),
        started.exited.then((code) => Promise.reject(new Error(`${w.manifest.name} exited with ${code} before it was ready`))),
      ]);
    } catch (error) {
      throw new Error(`${String(error)}\n--- ${w.manifest.name} output ---\n${started.output()}`);
    }
    return started;
  }

  const services = workloads.filter((w) => w.manifest.kind !== 'Job');

  beforeAll(async () => {
    const [nats, redis] = await Promise.all([requireNats(), requireRedis()]);
    database = await createTestDatabase();
    infrastructure = {
      DATABASE_URL: database.url,
      NATS_URL: nats,
      REDIS_URL: redis,
      NOETL_TENANT_ID: `t${randomBytes(4).toString('hex')}`,
    };
    // The api first: the worker reports to it (NOETL_SERVER_URL is the api Service in the cluster).
    const api = await startWorkload(
      services.find((w) => w.manifest.name === 'noetl-api')!,
      {},
    );
    await Promise.all(
      services
        .filter((w) => w.manifest.name !== 'noetl-api')
        .map((w) => startWorkload(w, { NOETL_SERVER_URL: `http://127.0.0.1:${api.port}` })),
    );
  });

  afterAll(async () => {
    await Promise.all(running.map(stop));
    await database?.drop();
  });

  it('every service workload answers 200 on each path its probes (and Prometheus) use', async () => {
    expect(running.map((s) => s.workload).sort()).toEqual([
      'noetl-api',
      'noetl-projector',
      'noetl-scheduler',
      'noetl-worker',
      'noetl-worker-batch',
    ]);
    // The workers run, and answer ready, without a database (issue 25 item 2).
    expect(
      running
        .filter((s) => !s.hasDatabaseUrl)
        .map((s) => s.workload)
        .sort(),
    ).toEqual(['noetl-worker', 'noetl-worker-batch']);
    const answers: Record<string, Record<string, number>> = {};
    const expected: Record<string, Record<string, number>> = {};
    for (const w of services) {
      const started = running.find((s) => s.workload === w.manifest.name)!;
      const paths = probedPaths(w);
      expect(paths).toEqual(expect.arrayContaining(['/health/live', '/health/ready']));
      answers[w.manifest.name] = Object.fromEntries(await Promise.all(paths.map(async (p) => [p, await status(started.port, p)] as const)));
      expected[w.manifest.name] = Object.fromEntries(paths.map((p) => [p, 200]));
    }
    expect(answers).toEqual(expected);
  });

  it("the image's HEALTHCHECK command passes against a running role and fails against a port nobody serves", async () => {
    const api = running.find((s) => s.workload === 'noetl-api')!;
    const dockerfile = readDockerfile();
    const [command, ...args] = dockerfile.execForm(dockerfile.runtime, 'HEALTHCHECK');
    const check = (port: number) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(command!, args, { env: { ...baseEnv(), PORT: String(port) }, stdio: 'ignore' });
        child.once('exit', (code) => resolve(code));
      });
    expect(await check(api.port)).toBe(0);
    expect(await check(await freePort())).toBe(1);
  });

  it('the migration Job migrates an empty database and stores the keys, and running it again changes nothing', async () => {
    const job = workloads.find((w) => w.manifest.kind === 'Job')!;
    const [migrate, keys] = [...(job.pod.initContainers ?? []), ...job.pod.containers];
    const empty = await createEmptyDatabase();
    /** Runs the Job's pod: its init container, then its container, each to its exit. */
    const runJob = async () => {
      const outputs: { code: number | null; output: string }[] = [];
      for (const container of [migrate!, keys!]) {
        const env = { ...containerEnv(container, manifests, job.podNames[0]!), ...infrastructure, DATABASE_URL: empty.url };
        const run = runEntrypoint(job.manifest.name, env, container.args ?? []);
        outputs.push({ code: await run.exited, output: run.output() });
      }
      return outputs;
    };
    const stored = (key: string, role: string, variable: string) =>
      expect.stringContaining(`${role} key ${key.slice(6, 22)} of ${infrastructure.NOETL_TENANT_ID}/default (${variable}) is stored`);
    const bothStored = expect.stringMatching(/is stored\n.*is stored\n$/);
    try {
      const [firstMigration, firstKeys] = await runJob();
      expect(firstMigration).toEqual({ code: 0, output: expect.stringMatching(/^up: Initial\d+/) });
      expect(firstKeys).toEqual({ code: 0, output: stored(KEYS.NOETL_BOOTSTRAP_ADMIN_KEY, 'admin', 'NOETL_BOOTSTRAP_ADMIN_KEY') });
      expect(firstKeys!.output).toEqual(stored(KEYS.NOETL_BOOTSTRAP_WORKER_KEY, 'worker', 'NOETL_BOOTSTRAP_WORKER_KEY'));
      const [againMigration, againKeys] = await runJob();
      expect(againMigration).toEqual({ code: 0, output: 'up: nothing to do\n' });
      expect(againKeys).toEqual({ code: 0, output: bothStored });
    } finally {
      await empty.drop();
    }
  });

  it('a container whose NOETL_ROLES names no role stops at once, saying which', async () => {
    const started = runEntrypoint('misnamed', { ...infrastructure, NOETL_ROLES: 'wrker', PORT: String(await freePort()) });
    expect({ code: await started.exited, output: started.output() }).toEqual({
      code: 1,
      output: expect.stringContaining('NOETL_ROLES has unknown role(s) wrker'),
    });
  });
});
