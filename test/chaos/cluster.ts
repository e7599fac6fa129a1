import { freePort, startCliServer, startRoleApp, type CliServerProcess } from '../support/cli-server-process';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { TEST_ENCRYPTION_KEY } from '../support/test-engine';
import type { ChaosServices } from './services';

/**
 * A role process of the deployment; `server` is one `noetl server` running
 * the api, a scheduler and a worker together (its worker reports to its own
 * control plane: commands are claimed as they are issued and reports are
 * planned in their own transaction), beside the split roles.
 */
export type Role = 'api' | 'scheduler' | 'worker' | 'projector' | 'server';

/** One role process and whether it runs as the baseline deployment does (no fault injected into it). */
interface RoleProcess {
  role: Role;
  process: CliServerProcess;
  baseline: boolean;
  state: 'running' | 'paused' | 'dead';
}

export interface ClusterOptions {
  workers: number;
  /** Runner slots per worker process. */
  workerConcurrency: number;
}

/**
 * The deployment under test: the api, the scheduler, one projector and
 * `workers` worker processes, each a separate OS process from the built
 * apps (as the image runs them), over the harness's own services. The api
 * keeps its port across restarts so the workers' control plane URL holds.
 */
export class ChaosCluster {
  private readonly roles: RoleProcess[] = [];
  /** Processes found gone on their own since the last `heal`, which reports them. */
  private readonly crashes: string[] = [];

  private constructor(
    private readonly env: Record<string, string>,
    private readonly roleEnv: Partial<Record<Role, Record<string, string>>>,
    private readonly apiPort: number,
    private readonly options: ClusterOptions,
    private workerKey = '',
    public client = new NoetlHttpClient(`http://127.0.0.1:${apiPort}`),
  ) {}

  static async start(services: ChaosServices, home: string, options: ClusterOptions): Promise<ChaosCluster> {
    const env = {
      DATABASE_URL: services.postgres.url,
      NATS_URL: services.nats.url,
      REDIS_URL: services.redis.url,
      NOETL_HOME: home,
      NOETL_TENANT_ID: 'chaos',
      NOETL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      // Faults are found and healed in a trial of seconds: sweep often, short command leases, a short drain.
      NOETL_SWEEP_MS: '200',
      NOETL_LEASE_SECONDS: '3',
      NOETL_SHUTDOWN_GRACE_SECONDS: '2',
      NOETL_RATE_LIMIT: '0',
      LOG_LEVEL: 'warn',
    };
    const apiPort = await freePort();
    const cluster = new ChaosCluster(env, (await services.roleEnv?.(apiPort)) ?? {}, apiPort, options);
    const api = await cluster.launch('api');
    cluster.client = new NoetlHttpClient(api.process.url, api.process.apiKey);
    cluster.workerKey = await cluster.client.createKey('worker', 'chaos worker');
    await Promise.all([
      cluster.launch('scheduler'),
      cluster.launch('projector'),
      ...Array.from({ length: options.workers }, () => cluster.launch('worker')),
    ]);
    return cluster;
  }

  /** Running (not paused, not dead) processes of a role. */
  running(role: Role): RoleProcess[] {
    return this.roles.filter((r) => r.role === role && r.state === 'running');
  }

  /** SIGKILL: no shutdown hook runs. */
  async crash(target: RoleProcess): Promise<void> {
    if (target.state === 'paused') process.kill(target.process.pid, 'SIGCONT');
    await target.process.crash();
    target.state = 'dead';
  }

  /** SIGTERM: the process drains and exits. */
  async terminate(target: RoleProcess): Promise<void> {
    await target.process.stop();
    target.state = 'dead';
  }

  pause(target: RoleProcess): void {
    process.kill(target.process.pid, 'SIGSTOP');
    target.state = 'paused';
  }

  resume(target: RoleProcess): void {
    process.kill(target.process.pid, 'SIGCONT');
    target.state = 'running';
  }

  /** A new process of `role`, with `env` over the deployment's (a fault's settings make it not the baseline). */
  async launch(role: Role, env: Record<string, string> = {}): Promise<RoleProcess> {
    const roleEnv: Record<string, string> = { ...this.env };
    if (role === 'api') roleEnv.PORT = String(this.apiPort);
    if (role === 'worker') {
      Object.assign(roleEnv, {
        NOETL_SERVER_URL: `http://127.0.0.1:${this.apiPort}`,
        NOETL_API_KEY: this.workerKey,
        NOETL_WORKER_CONCURRENCY: String(this.options.workerConcurrency),
      });
    }
    if (role === 'server')
      Object.assign(roleEnv, {
        NOETL_ROLES: 'api,scheduler,worker',
        PORT: String(await freePort()),
        NOETL_WORKER_CONCURRENCY: String(this.options.workerConcurrency),
      });
    // The services' settings for the role (a proxy in front of the api), then the fault's.
    Object.assign(roleEnv, this.roleEnv[role], env);
    const process = role === 'server' ? await startCliServer(roleEnv) : await startRoleApp(role, roleEnv);
    // A `server` is no part of the baseline deployment: a scenario adds it, and `heal({restore})` stops it.
    const started: RoleProcess = { role, process, baseline: role !== 'server' && Object.keys(env).length === 0, state: 'running' };
    this.roles.push(started);
    return started;
  }

  /**
   * Every role running again: paused processes continued, dead ones
   * replaced. With `restore`, also back to the baseline deployment: processes
   * started with a fault's settings are stopped and replaced by plain ones
   * (a scenario's trials share its fault's processes; the next scenario does not).
   */
  async heal(options: { restore?: boolean } = {}): Promise<string[]> {
    this.exitedOnTheirOwn();
    const exited = this.crashes.splice(0);
    for (const target of this.roles.filter((r) => r.state === 'paused')) this.resume(target);
    if (options.restore) await Promise.all(this.roles.filter((r) => r.state === 'running' && !r.baseline).map((r) => this.terminate(r)));
    this.roles.splice(0, this.roles.length, ...this.roles.filter((r) => r.state !== 'dead'));
    const missing: Role[] = [];
    for (const role of ['api', 'scheduler', 'projector'] as const) if (this.running(role).length === 0) missing.push(role);
    if (missing.includes('api')) await this.launch('api');
    const workers = Math.max(0, this.options.workers - this.running('worker').length);
    await Promise.all([
      ...missing.filter((r) => r !== 'api').map((r) => this.launch(r)),
      ...Array.from({ length: workers }, () => this.launch('worker')),
    ]);
    return exited;
  }

  /**
   * Processes no fault stopped that are gone (a crash of the runtime's own:
   * an unhandled error), marked dead so `heal` replaces (and reports) them:
   * every one found since the last `heal`, one line each with the end of its output.
   */
  exitedOnTheirOwn(): string[] {
    const exited = this.crashes;
    for (const target of this.roles.filter((r) => r.state !== 'dead')) {
      try {
        process.kill(target.process.pid, 0);
      } catch {
        target.state = 'dead';
        exited.push(
          `${target.role} process ${target.process.pid} exited on its own: ${target.process.output().slice(-1_500).replace(/\s+/g, ' ')}`,
        );
      }
    }
    return exited;
  }

  /** Whether a process started with a fault's settings runs as `role` (the fault is in place from an earlier trial). */
  faulted(role: Role): boolean {
    return this.running(role).some((r) => !r.baseline);
  }

  /** Output of every process that ran, for a failed trial's diagnosis. */
  outputs(): string {
    return this.roles.map((r) => `--- ${r.role} ${r.process.pid} (${r.state}) ---\n${r.process.output().slice(-3_000)}`).join('\n');
  }

  async stop(): Promise<void> {
    for (const target of this.roles.filter((r) => r.state === 'paused')) this.resume(target);
    await Promise.all(this.roles.filter((r) => r.state === 'running').map((r) => this.terminate(r)));
  }
}

export type { RoleProcess };
