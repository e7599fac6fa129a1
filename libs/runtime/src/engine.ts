import type { NoetlConfig, Role } from '@noetl/config';
import { ExpressionEngine } from '@noetl/dsl';
import { SnowflakeIds, type ExecutionStatus } from '@noetl/event-kernel';
import {
  CommandRepository,
  ExecutionRepository,
  FrameRepository,
  OutboxRepository,
  PgEventStore,
  ProjectionRepository,
  PgPayloadStore,
  ScheduleRepository,
  StageRepository,
  TimerRepository,
  WorkerRepository,
} from '@noetl/storage';
import { defaultTools, type ToolRegistry } from '@noetl/tools';
import { connect, type NatsConnection } from 'nats';
import { randomUUID, randomInt } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { AdminService } from './admin/admin.service';
import { QueueGroups, Subjects, type Bus, type Unsubscribe } from './bus/bus';
import { InProcessBus } from './bus/in-process-bus';
import { Offers } from './bus/offers';
import { CatalogService } from './catalog/catalog.service';
import type { ControlPlane } from './control-plane/control-plane';
import { LocalControlPlane } from './control-plane/local-control-plane';
import type { CredentialStore } from './credentials/credential-types';
import { openCredentialStore } from './credentials/pg-credential-store';
import type { EngineOptions } from './engine-types';
import type { ExecutionDetail } from './executions/execution-types';
import { ExecutionService } from './executions/execution.service';
import { Ledger } from './ledger';
import { RuntimeMetrics } from './metrics';
import { OutboxProjector } from './projection/outbox-projector';
import { ProjectedStates } from './projection/projected-states';
import { Projector } from './projection/projector';
import { ProjectorMetrics } from './projection/projector-metrics';
import { PROJECTION_SNAPSHOT_EVERY } from './projection/rebuild';
import { Replay } from './projection/replay';
import { OutboxRelay } from './relay/outbox-relay';
import { RelayMetrics } from './relay/relay-metrics';
import { StreamProjector } from './projection/stream-projector';
import { RuntimeError } from './runtime-error';
import { DeclaredSchedules } from './schedules/declared-schedules';
import { ScheduleService } from './schedules/schedule.service';
import { ScheduleTicker } from './schedules/schedule-ticker';
import { RetryLane } from './scheduler/retry-lane';
import { Scheduler } from './scheduler/scheduler';
import { Sweeper } from './scheduler/sweeper';
import { ExecutionStates } from './state/execution-states';
import { PayloadCache } from './state/payload-cache';
import { createRemoteControlPlane } from './transport-factory';
import { WorkerDirectory } from './workers/worker-directory';
import { workerToolOptions } from './worker/tool-options';
import { Worker, type Offer } from './worker/worker';

/** How often a worker reports its capacity to the registry. */
const WORKER_REPORT_MS = 5_000;

/** Without NATS, how often the projector looks for outbox rows (it drains everything there on each look). */
const PROJECTOR_POLL_MS = 100;

/** The id node of this process: random, so processes sharing a ledger mint distinct ids (10 bits: see ids.ts). */
const idNode = (): number => randomInt(0, 1024);

/**
 * The composition of the runtime, in plain TypeScript: the services every
 * role shares (catalog, executions, the in-process control plane,
 * credentials, metrics, the worker registry) and, per role, the scheduler
 * with its sweeper and the worker. `noetl run`, benches and tests use it
 * whole; the Nest apps (libs/platform) build it once and hand each
 * controller only the narrow service it uses. Notifications reach the
 * scheduler and the worker through the bus it was given (`listen: true`,
 * the default) or through the caller (the apps' NATS handlers call
 * `scheduler.process` and `worker.offer`).
 */
export class Engine {
  private sweepTimer?: NodeJS.Timeout;
  private readonly subscriptions: Unsubscribe[] = [];
  private sweeping?: Promise<void>;
  private stopped = false;

  private constructor(
    readonly config: NoetlConfig,
    readonly catalog: CatalogService,
    readonly executions: ExecutionService,
    readonly controlPlane: LocalControlPlane,
    readonly credentials: CredentialStore,
    readonly metrics: RuntimeMetrics,
    readonly bus: Bus,
    readonly admin: AdminService,
    readonly workers: WorkerDirectory,
    readonly schedules: ScheduleService,
    readonly logger: Logger,
    /** Any execution's state as of any event of its ledger. */
    readonly replay: Replay,
    private readonly parts: {
      scheduler?: Scheduler;
      sweeper?: Sweeper;
      lane?: RetryLane;
      worker?: Worker;
      ownsBus: boolean;
      /** False when the caller schedules the sweeps (a Nest app, with @nestjs/schedule). */
      ownSweepTimer: boolean;
      tools: ToolRegistry;
      remote?: { close(): Promise<void> };
      listen: boolean;
      /** The projector role: the fold, and its feed (JetStream with NATS, the outbox without). */
      projector?: Projector;
      feed?: OutboxProjector | StreamProjector;
      /** The scheduler role's outbox relay, with NATS. */
      relay?: OutboxRelay;
      /** The connection of the relay and the projector's stream consumer (JetStream), with NATS. */
      nats?: NatsConnection;
    },
  ) {}

  /** The routing authority, in a process with the scheduler role. */
  get scheduler(): Scheduler | undefined {
    return this.parts.scheduler;
  }

  /** The projector, in a process with the projector role. */
  get projector(): Projector | undefined {
    return this.parts.projector;
  }

  /** The worker, in a process with the worker role. */
  get worker(): Worker | undefined {
    return this.parts.worker;
  }

  static async start(options: EngineOptions): Promise<Engine> {
    const { config, database } = options;
    const roles: readonly Role[] = options.roles ?? config.roles;
    const logger = options.logger ?? pino({ level: config.log.level });
    const scope = config.tenancy;
    const metrics = new RuntimeMetrics();
    const ids = new SnowflakeIds(idNode(), () => Date.now());
    const ledger = new Ledger(new PgEventStore(database), ids, scope, roles.join('+') || 'engine', metrics);
    const bus = options.bus ?? new InProcessBus();
    const payloadStore = new PgPayloadStore(database);
    const payloads = new PayloadCache(payloadStore, scope);
    const states = new ExecutionStates(ledger);
    const scheduleRows = new ScheduleRepository();
    const declared = new DeclaredSchedules({ rows: scheduleRows, ids, scope, now: () => ledger.now() });
    const catalog = new CatalogService(database, ids, scope, (q, playbook) => declared.apply(q, playbook));
    const rows = {
      commandRows: new CommandRepository(),
      frameRows: new FrameRepository(),
      stageRows: new StageRepository(),
      timerRows: new TimerRepository(),
      executionRows: new ExecutionRepository(),
    };
    const workerRows = new WorkerRepository();
    // A worker is a candidate for targeted offers while it reported within three of its beats.
    const offers = new Offers({ db: database, bus, workerRows, scope, freshMs: 3 * WORKER_REPORT_MS });
    metrics.trackBacklog({ commands: () => rows.commandRows.backlog(database), frames: () => rows.frameRows.backlog(database) });
    // A worker on a remote control plane asks the API for credentials; it never decrypts one itself.
    const remote = roles.includes('worker') && !roles.includes('api') && !options.controlPlane ? createRemoteControlPlane(config) : undefined;
    const decrypts = roles.includes('api') || (roles.includes('worker') && !remote && !options.controlPlane);
    const credentials = await openCredentialStore(database, config.encryptionKey, scope, { decrypts });
    const projections = new ProjectionRepository();
    const projected = new ProjectedStates(ledger, projections);
    const replay = new Replay(database, ledger, projections, payloads);
    const executions = new ExecutionService(database, ledger, catalog, states, payloads, bus, metrics, rows.executionRows, projected, config.payloads.inlineLimitBytes);
    const schedules = new ScheduleService({ db: database, ledger, rows: scheduleRows, catalog, executions });
    const controlPlane = new LocalControlPlane({
      db: database,
      ledger,
      states,
      catalog,
      payloads,
      payloadStore,
      inlineLimitBytes: config.payloads.inlineLimitBytes,
      credentials,
      executions,
      bus,
      metrics,
      ...rows,
      workerRows,
      offers,
    });
    const admin = new AdminService({
      db: database,
      ledger,
      offers,
      notify: (executionId) => bus.publish(Subjects.execution(scope.tenantId), { execution_id: executionId }),
      ...rows,
    });
    const expressions = new ExpressionEngine({ now: () => new Date(), uuid: () => randomUUID() });
    const tools = options.tools ?? defaultTools(workerToolOptions(config, database));
    const parts: Engine['parts'] = { ownsBus: options.bus === undefined, ownSweepTimer: options.sweepEvery !== 'caller', tools, listen: options.listen ?? true };

    if (roles.includes('scheduler')) {
      // With Redis, a timer fires on time in whichever scheduler takes its job; the sweep remains the authority.
      const lane = config.redis
        ? await RetryLane.open(config.redis.url.reveal(), {
            prefix: `noetl.${scope.tenantId}.${scope.organizationId}`,
            logger: logger.child({ role: 'retry-lane' }),
          })
        : undefined;
      // The scheduler's follow-ups are the sweeper's, which needs the scheduler: the closures run only after both exist.
      const scheduler = new Scheduler({
        db: database,
        ledger,
        catalog,
        payloads,
        payloadStoreWithin: (q) => new PgPayloadStore(q),
        inlineLimitBytes: config.payloads.inlineLimitBytes,
        engine: expressions,
        bus,
        offers,
        metrics,
        logger: logger.child({ role: 'scheduler' }),
        rows,
        followUps: {
          timerArmed: (timer) => (lane ? void lane.schedule(timer.timerId, timer.dueAt) : sweeper.timerArmed(timer)),
          commandCancelled: (commandId) => sweeper.commandCancelled(commandId),
          executionEnded: (state) => sweeper.executionEnded(state),
        },
      });
      const sweeper = new Sweeper(
        {
          db: database,
          ledger,
          bus,
          offers,
          executions,
          controlPlane,
          logger: logger.child({ role: 'sweeper' }),
          ...(options.schedules === false
            ? {}
            : { schedules: new ScheduleTicker({ db: database, ledger, rows: scheduleRows, executions, logger: logger.child({ role: 'schedules' }) }) }),
          // A few sweeps' grace before an unclaimed command is offered again.
          renotifyAfterMs: Math.max(1000, config.scheduler.sweepMs * 5),
          ...rows,
        },
        scheduler,
      );
      parts.scheduler = scheduler;
      parts.sweeper = sweeper;
      parts.lane = lane;
    }
    if (roles.includes('worker')) {
      const workerPlane: ControlPlane = options.controlPlane ?? remote ?? controlPlane;
      if (remote) parts.remote = remote;
      parts.worker = new Worker({
        ...(options.workerId ? { workerId: options.workerId } : {}),
        controlPlane: workerPlane,
        tools,
        engine: expressions,
        metrics,
        logger: logger.child({ role: 'worker' }),
        concurrency: config.worker.concurrency,
        leaseMs: config.worker.leaseMs,
        pythonEnabled: config.worker.python,
        ...(config.worker.tools ? { kinds: config.worker.tools } : {}),
        ...(config.worker.pool ? { pool: config.worker.pool } : {}),
        reportEveryMs: WORKER_REPORT_MS,
      });
    }
    if (roles.includes('scheduler') && config.nats) {
      parts.nats = await connect({ servers: config.nats.url, name: `noetl-${roles.join('+')}-jetstream` });
      const outbox = new OutboxRepository(database, scope);
      parts.relay = new OutboxRelay({
        db: database,
        outbox,
        js: parts.nats.jetstream(),
        jsm: await parts.nats.jetstreamManager(),
        scope,
        shardCount: config.projector.shardCount,
        batch: config.relay.batch,
        pollMs: config.relay.pollMs,
        retentionMs: config.relay.retentionMs,
        limits: config.relay.stream,
        logger: logger.child({ role: 'relay' }),
        metrics: new RelayMetrics(metrics.registry, outbox),
      });
    }
    if (roles.includes('projector')) {
      const { shardIndex, shardCount } = config.projector;
      const projectorMetrics = new ProjectorMetrics(metrics.registry);
      const projector = new Projector({ db: database, ledger, projections, metrics: projectorMetrics, shard: String(shardIndex), snapshotEvery: PROJECTION_SNAPSHOT_EVERY });
      const projectorLogger = logger.child({ role: 'projector', shard: shardIndex });
      parts.projector = projector;
      if (config.nats) {
        parts.nats ??= await connect({ servers: config.nats.url, name: `noetl-${roles.join('+')}-jetstream` });
        parts.feed = new StreamProjector({ nats: parts.nats, projector, metrics: projectorMetrics, logger: projectorLogger, scope, shardIndex, shardCount });
      } else {
        parts.feed = new OutboxProjector(new OutboxRepository(database, scope), projector, projectorLogger, { pollMs: PROJECTOR_POLL_MS, retentionMs: config.relay.retentionMs });
      }
    }
    const workers = new WorkerDirectory({ db: database, workerRows, scope, freshMs: 3 * WORKER_REPORT_MS });
    const engine = new Engine(config, catalog, executions, controlPlane, credentials, metrics, bus, admin, workers, schedules, logger, replay, parts);
    engine.run();
    return engine;
  }

  /**
   * Resolves with the execution's detail once it is terminal (or throws
   * `not_found`); rejects after `timeoutMs`. Wakes on the `finished`
   * notification and re-reads at least every 500 ms, so a lost message only delays it.
   */
  async waitForTerminal(executionId: string, options: { timeoutMs?: number } = {}): Promise<ExecutionDetail> {
    const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000);
    let wake: (() => void) | undefined;
    const unsubscribe = this.bus.subscribe(Subjects.finished(this.config.tenancy.tenantId), (message) => {
      if (message['execution_id'] === executionId) wake?.();
    });
    try {
      for (;;) {
        const detail = await this.executions.get(executionId);
        if (isTerminalStatus(detail.status)) return detail;
        const left = deadline - Date.now();
        if (left <= 0) throw new RuntimeError('invalid_request', `execution ${executionId} is still ${detail.status} after the wait`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(500, left));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      unsubscribe();
    }
  }

  /**
   * Runs one sweep now, unless one is running here or in another process
   * (one active sweeper per tenant). The engine sweeps every
   * `scheduler.sweepMs` itself, or the caller does (`sweepEvery: 'caller'`).
   */
  async sweep(): Promise<void> {
    if (!this.parts.sweeper) return;
    this.sweeping ??= this.parts.sweeper
      .sweep()
      .then(() => undefined)
      .finally(() => (this.sweeping = undefined));
    await this.sweeping;
  }

  /** `sweep`, for a timer: a failure is logged and the next period tries again. */
  async sweepLogged(): Promise<void> {
    await this.sweep().catch((error: unknown) => this.logger.error({ err: error }, 'sweep failed; the next one retries'));
  }

  /** Stops every role; the worker first drains for up to `graceMs` (see Worker.stop). */
  async stop(graceMs = 0): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const unsubscribe of this.subscriptions) unsubscribe();
    clearInterval(this.sweepTimer);
    this.parts.sweeper?.stop();
    await this.parts.lane?.close();
    await this.parts.worker?.stop(graceMs);
    await this.sweeping?.catch(() => undefined);
    await this.parts.scheduler?.idle();
    await this.parts.tools.close();
    await this.parts.remote?.close();
    await this.parts.feed?.stop();
    await this.parts.relay?.stop();
    await this.parts.nats?.close();
    if (this.parts.ownsBus) await this.bus.close();
  }

  private run(): void {
    const { scheduler, sweeper, lane, worker } = this.parts;
    const tenant = this.config.tenancy.tenantId;
    if (scheduler) {
      if (this.parts.listen) {
        this.subscriptions.push(
          this.bus.subscribe(Subjects.execution(tenant), (message) => void scheduler.process(String(message['execution_id'])), {
            queue: QueueGroups.schedulers,
          }),
        );
      }
      if (this.parts.ownSweepTimer) {
        this.sweepTimer = setInterval(() => void this.sweepLogged(), this.config.scheduler.sweepMs);
        this.sweepTimer.unref();
      }
      // fireTimer wakes the scheduler itself; a timer it did not fire was not due, or is fired already or by a sweep.
      if (sweeper) lane?.start((timerId) => sweeper.fireTimer(timerId).then(() => undefined));
      // Resume what a previous process left: unplanned events, due timers, expired leases.
      void this.sweepLogged();
    }
    if (worker && this.parts.listen) {
      const offer = (kind: Offer['kind'], key: 'command_id' | 'stage_id') => (message: Record<string, unknown>) => {
        if (typeof message[key] === 'string') worker.offer({ kind, id: message[key] });
      };
      const subjects: [string, (message: Record<string, unknown>) => void][] = [
        [Subjects.workFor(tenant, worker.workerId), offer('command', 'command_id')],
        [Subjects.framesFor(tenant, worker.workerId), offer('stage', 'stage_id')],
      ];
      // A restricted worker takes only the offers made to it; the broadcast is for workers that run every kind.
      if (!this.config.worker.tools) subjects.push([Subjects.work(tenant), offer('command', 'command_id')], [Subjects.frames(tenant), offer('stage', 'stage_id')]);
      for (const [subject, handler] of subjects) this.subscriptions.push(this.bus.subscribe(subject, handler, { queue: QueueGroups.workers }));
    }
    worker?.start();
    this.parts.relay?.start();
    this.parts.feed?.start();
  }
}

function isTerminalStatus(status: ExecutionStatus): boolean {
  return status !== 'RUNNING';
}
