import type { NoetlConfig, Role } from '@noetl/config';
import { DATABASE_CLOCK_SYNC_MS, DatabaseClock } from './database-clock';
import { ExpressionEngine, OffloadingRenderer } from '@noetl/dsl';
import { SnowflakeIds, type ExecutionStatus, type LedgerEvent } from '@noetl/event-kernel';
import { PgEventStore, type Queryable, type TenantScope } from '@noetl/storage';
import { defaultTools, type ToolRegistry } from '@noetl/tools';
import type { NatsConnection } from 'nats';
import { randomUUID, randomInt } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { QueueGroups, Subjects, type Bus, type Unsubscribe } from './bus/bus';
import { InProcessBus } from './bus/in-process-bus';
import { readLedgerIdentity } from './control-plane/ledger-identity';
import { openCredentialCipher } from './credentials/pg-credential-store';
import type { EngineOptions } from './engine-types';
import type { ExecutionDetail } from './executions/execution-types';
import { RuntimeMetrics } from './metrics';
import { openPayloadStores } from './payload-stores';
import type { LedgerFeed } from './projection/ledger-feed';
import { openProjectorFeed } from './projection/projector-feed';
import { ProjectorMetrics } from './projection/projector-metrics';
import { RenderPool } from './render/render-pool';
import type { StreamProjector } from './projection/stream-projector';
import { RuntimeError } from './runtime-error';
import { RetryLane } from './scheduler/retry-lane';
import { planOnNotice } from './scheduler/execution-notices';
import { rowRepositories, type SharedParts } from './tenants/shared-parts';
import { scopeKey, TenantRuntime } from './tenants/tenant-runtime';
import { createRemoteControlPlane, offeredTenant } from './transport-factory';
import { pythonLedgerRefusal } from './worker/python-ledger-refusal';
import { retryableLedgerIdentity } from './worker/api-lookups';
import { workerToolOptions } from './worker/tool-options';
import { offerHandlers, offerSubjects } from './worker/offer-handlers';
import { processWorker } from './worker/process-worker';
import type { Worker } from './worker/worker';

/** waitForTerminal's re-read when no `finished` message came: the safety net for a lost one. */
const TERMINAL_RECHECK_MS = 5000;

/** The id node of this process: random, so processes sharing a ledger mint distinct ids (10 bits: see ids.ts). */
const idNode = (): number => randomInt(0, 1024);

/**
 * The composition of the runtime, in plain TypeScript: what a process
 * shares (database, bus, metrics, tools, the worker, the projector's feed,
 * the retry lane) and, per tenant it serves, a `TenantRuntime` built on
 * first use (`tenant(scope)`): catalog, executions, control plane,
 * credentials, admin, replay, the worker registry, and the scheduler with
 * its sweeper and the projector of a process with those roles. The API
 * serves each caller from its tenant's runtime; notifications carry their
 * tenant; a sweep visits every tenant with a running execution. `noetl run`,
 * benches and tests use the process's own tenant (`own`: NOETL_TENANT_ID),
 * with no service of its own on the engine. The role modules (libs/roles) build it once through
 * libs/platform and hand each controller only the narrow service it uses;
 * what runs beside it in a role's process, such as the scheduler's event
 * relay, is that module's. Notifications reach the scheduler and the worker
 * through the same handlers (`planOnNotice`, `offerHandlers`), on the bus it
 * was given (`listen: true`, the default) or in the role modules' NATS handlers.
 */
export class Engine {
  private sweepTimer?: NodeJS.Timeout;
  private clockTimer?: NodeJS.Timeout;
  private readonly subscriptions: Unsubscribe[] = [];
  private sweeping?: Promise<void>;
  private stopped = false;
  private readonly tenants = new Map<string, TenantRuntime>();

  private constructor(
    readonly config: NoetlConfig,
    readonly metrics: RuntimeMetrics,
    readonly bus: Bus,
    readonly logger: Logger,
    private readonly roles: readonly Role[],
    /** Absent in a worker on the API's control plane: it holds no connection to the ledger (no tenant runtime, no clock). */
    private readonly shared: SharedParts | undefined,
    private readonly parts: {
      worker?: Worker;
      ownsBus: boolean;
      /** False when the caller schedules the sweeps (a Nest app, with @nestjs/schedule). */
      ownSweepTimer: boolean;
      tools: ToolRegistry;
      /** The render threads (issue 25 item 7): started on a first render too heavy for the event loop. */
      renders: RenderPool;
      remote?: { close(): Promise<void> };
      listen: boolean;
      /** The projector role's feed: JetStream with NATS, the ledger's tail without. */
      feed?: LedgerFeed | StreamProjector;
      /** The connection of the projector's stream consumer (JetStream), with NATS. */
      nats?: NatsConnection;
    },
  ) {}

  /** The runtime of one tenant and organization, built on first use and kept for the life of the process. */
  tenant(scope: TenantScope): TenantRuntime {
    const key = scopeKey(scope);
    let runtime = this.tenants.get(key);
    if (!runtime) {
      runtime = new TenantRuntime({ tenantId: scope.tenantId, organizationId: scope.organizationId }, this.ledgerParts());
      this.tenants.set(key, runtime);
    }
    return runtime;
  }

  /** The process's own tenant (`NOETL_TENANT_ID` / `NOETL_ORGANIZATION_ID`): what `noetl run` and a server without auth serve. */
  get own(): TenantRuntime {
    return this.tenant(this.config.tenancy);
  }

  /** The worker, in a process with the worker role. */
  get worker(): Worker | undefined {
    return this.parts.worker;
  }

  /**
   * Without `database`, only a worker whose control plane is given or
   * remote (`config.server`) starts: everything it needs of the ledger, its
   * control plane answers.
   */
  static async start(options: EngineOptions): Promise<Engine> {
    const { config, database } = options;
    const roles: readonly Role[] = options.roles ?? config.roles;
    const logger = options.logger ?? pino({ level: config.log.level });
    const metrics = new RuntimeMetrics();
    const bus = options.bus ?? new InProcessBus();
    // A worker on a remote control plane asks the API for credentials; it never decrypts one itself.
    const remote =
      roles.includes('worker') && !roles.includes('api') && !options.controlPlane ? createRemoteControlPlane(config) : undefined;
    const plane = options.controlPlane ?? remote;
    const expressions = new ExpressionEngine(
      { now: () => new Date(), uuid: () => randomUUID() },
      { limits: { maxRangeSize: config.limits.rangeItems } },
    );
    const renders = new RenderPool(expressions, config.templates.threads);
    const inlineSlice = { work: config.templates.inlineWork, ms: config.templates.inlineMs, clock: () => performance.now() };
    const offloadRender: SharedParts['offloadRender'] = (role) => (request) => {
      metrics.templateRendersOffloaded.inc({ role });
      return renders.render(request);
    };
    const workerRender = (): OffloadingRenderer => new OffloadingRenderer(expressions, inlineSlice, offloadRender('worker'));
    const partsWith = (tools: ToolRegistry): Engine['parts'] => ({
      ownsBus: options.bus === undefined,
      ownSweepTimer: options.sweepEvery !== 'caller',
      tools,
      renders,
      listen: options.listen ?? true,
      ...(remote ? { remote } : {}),
    });
    if (!database) {
      if (!plane || roles.some((role) => role !== 'worker')) {
        throw new Error(
          `roles ${roles.join(',') || '(none)'} need the ledger database: only a worker that reports to an API (NOETL_SERVER_URL) runs without one`,
        );
      }
      // The ledger's identity, which postgres steps are refused, comes from the API too.
      const tools =
        options.tools ??
        defaultTools(
          workerToolOptions(
            config,
            retryableLedgerIdentity(() => plane.ledgerIdentity()),
          ),
        );
      const parts = {
        ...partsWith(tools),
        worker: processWorker(options, { controlPlanes: () => plane, tools, render: workerRender(), metrics, logger }),
      };
      const engine = new Engine(config, metrics, bus, logger, roles, undefined, parts);
      engine.run();
      return engine;
    }
    const pythonRefusal = options.tools ? undefined : await pythonLedgerRefusal(config, roles, database);
    if (pythonRefusal) logger.error(`python steps are refused: ${pythonRefusal}`);
    const tools =
      options.tools ??
      defaultTools(
        workerToolOptions(
          config,
          plane ? retryableLedgerIdentity(() => plane.ledgerIdentity()) : () => readLedgerIdentity(database),
          pythonRefusal,
        ),
      );
    const parts = partsWith(tools);
    const repositories = rowRepositories();
    metrics.trackBacklog({
      commands: () => repositories.commandRows.backlog(database),
      frames: () => repositories.frameRows.backlog(database),
    });
    const decrypts = roles.includes('api') || (roles.includes('worker') && !plane);
    const shared: SharedParts = {
      config,
      roles,
      database,
      store: new PgEventStore(database),
      ids: new SnowflakeIds(idNode(), () => Date.now()),
      clock: new DatabaseClock(),
      producer: roles.join('+') || 'engine',
      metrics,
      bus,
      payloads: await openPayloadStores(config.payloads, database),
      cipher: await openCredentialCipher(database, config.encryptionKey, { decrypts }),
      repositories,
      expressions,
      inlineSlice,
      offloadRender,
      logger,
      firesSchedules: options.schedules !== false,
    };
    if (roles.includes('scheduler') && config.redis) {
      // With Redis, a timer fires on time in whichever scheduler takes its job; the sweep remains the authority.
      // One lane per deployment (its ledger database), for every tenant: the job names the timer's tenant.
      shared.lane = await RetryLane.open(config.redis.url.reveal(), {
        prefix: `noetl.${database.dataSource.driver.database ?? 'ledger'}`,
        logger: logger.child({ role: 'retry-lane' }),
      });
    }
    if (roles.includes('projector')) {
      shared.projectorMetrics = new ProjectorMetrics(metrics.registry);
      if (options.projectorTuning) shared.projectorTuning = options.projectorTuning;
    }
    if (roles.includes('worker')) {
      // In-process, each tenant's work goes through that tenant's control plane.
      parts.worker = processWorker(options, {
        controlPlanes: plane ? () => plane : (scope) => engine.tenant(scope).controlPlane,
        tools,
        render: workerRender(),
        metrics,
        logger,
      });
      // Reporting here, it can be handed the commands this process's scheduler issues, claimed as they are issued.
      if (!plane) shared.localSlots = parts.worker;
    }
    if (shared.projectorMetrics) {
      const opened = await openProjectorFeed({
        config,
        database,
        repositories,
        metrics: shared.projectorMetrics,
        logger,
        name: `noetl-${roles.join('+')}-jetstream`,
        project: (events, elided, q) => engine.project(events, elided, q),
        flush: (options, q) => engine.flushProjections(options, q),
      });
      parts.feed = opened.feed;
      if (opened.nats) parts.nats = opened.nats;
    }
    await shared.clock.sync(database);
    const engine = new Engine(config, metrics, bus, logger, roles, shared, parts);
    engine.run();
    return engine;
  }

  /** Writes the projection rows the tenants' projectors deferred (those due, or `all`). */
  async flushProjections(options: { all?: boolean } = {}, q?: Queryable): Promise<void> {
    for (const tenant of this.tenants.values()) await tenant.projector?.flush(options, q);
  }

  /**
   * Events the projector role of this process has yet to fold: those
   * committed after the feed's cursor without NATS, the pending messages of
   * this shard's consumers with it (what the relay has not published is not
   * counted). Undefined without the projector role.
   */
  async projectionLag(): Promise<number | undefined> {
    return this.parts.feed?.lag();
  }

  /** Folds delivered events into their tenants' projections (the projector role's feed calls it). */
  async project(events: readonly LedgerEvent[], elided?: ReadonlySet<string>, q?: Queryable): Promise<void> {
    const byScope = new Map<string, { scope: TenantScope; events: LedgerEvent[] }>();
    for (const event of events) {
      const scope = { tenantId: event.tenant_id, organizationId: event.organization_id };
      const group = byScope.get(scopeKey(scope)) ?? { scope, events: [] };
      group.events.push(event);
      byScope.set(scopeKey(scope), group);
    }
    for (const { scope, events: delivered } of byScope.values()) {
      const projector = this.tenant(scope).projector;
      if (!projector) throw new Error('this process has no projector role');
      await projector.deliver(delivered, elided, q);
    }
  }

  /**
   * Resolves with the execution's detail once it is terminal (or throws
   * `not_found`); rejects after `timeoutMs`. Re-reads the execution when
   * its `finished` notification arrives, and otherwise only every
   * TERMINAL_RECHECK_MS, so a lost message only delays it: a re-read every
   * 500 ms made a thousand waiters 2,000 queries a second against the
   * engine they wait on. Of the process's own tenant unless `scope` names
   * another.
   */
  async waitForTerminal(executionId: string, options: { timeoutMs?: number; scope?: TenantScope } = {}): Promise<ExecutionDetail> {
    const scope = options.scope ?? this.config.tenancy;
    const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000);
    let wake: (() => void) | undefined;
    const unsubscribe = this.bus.subscribe(Subjects.finished(scope.tenantId), (message) => {
      if (message.execution_id === executionId) wake?.();
    });
    try {
      for (;;) {
        const detail = await this.tenant(scope).executions.get(executionId);
        if (isTerminalStatus(detail.status)) return detail;
        const left = deadline - Date.now();
        if (left <= 0) throw new RuntimeError('invalid_request', `execution ${executionId} is still ${detail.status} after the wait`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(TERMINAL_RECHECK_MS, left));
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
   * Runs one sweep now of every tenant with a running execution or a due
   * schedule, unless one is running here (each tenant's is skipped while another process sweeps
   * it: one active sweeper per tenant). The engine sweeps every
   * `scheduler.sweepMs` itself, or the caller does (`sweepEvery: 'caller'`).
   */
  async sweep(): Promise<void> {
    if (!this.roles.includes('scheduler')) return;
    this.sweeping ??= this.sweepTenants().finally(() => (this.sweeping = undefined));
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
    clearInterval(this.clockTimer);
    for (const tenant of this.tenants.values()) tenant.sweeper?.stop();
    await this.shared?.lane?.close();
    await this.parts.worker?.stop(graceMs);
    await this.sweeping?.catch(() => undefined);
    for (const tenant of this.tenants.values()) await tenant.stop();
    await this.parts.tools.close();
    await this.parts.renders.close();
    await this.parts.remote?.close();
    await this.parts.feed?.stop();
    await this.parts.nats?.close();
    this.shared?.payloads.objects?.close();
    if (this.parts.ownsBus) await this.bus.close();
  }

  /**
   * Each tenant with a running execution or a due schedule, in turn (a
   * failing tenant does not hold the others up): its sweep, when no other
   * process holds it.
   */
  private async sweepTenants(): Promise<void> {
    const { database, repositories, firesSchedules } = this.ledgerParts();
    const scopes = new Map((await repositories.executionRows.runningScopes(database)).map((scope) => [scopeKey(scope), scope]));
    if (firesSchedules)
      for (const scope of await repositories.scheduleRows.dueScopes(database, new Date())) scopes.set(scopeKey(scope), scope);
    const failures: unknown[] = [];
    for (const scope of scopes.values()) {
      await this.tenant(scope)
        .sweeper!.sweep()
        .catch((error: unknown) => failures.push(error));
    }
    if (failures.length > 0) throw failures[0];
  }

  /** What the process shares on the ledger: a programming error to ask for in a worker without it. */
  private ledgerParts(): SharedParts {
    if (!this.shared) throw new Error("this process holds no ledger database (a worker on the API's control plane)");
    return this.shared;
  }

  private run(): void {
    const { shared } = this;
    const lane = shared?.lane;
    const { worker } = this.parts;
    if (shared) {
      this.clockTimer = setInterval(
        () =>
          void shared.clock
            .sync(shared.database)
            .catch((error: unknown) => this.logger.warn({ err: error }, 'could not read the database clock; keeping the last offset')),
        DATABASE_CLOCK_SYNC_MS,
      );
      this.clockTimer.unref();
    }
    if (this.roles.includes('scheduler')) {
      if (this.parts.listen) {
        const plan = planOnNotice((scope) => this.tenant(scope).scheduler);
        this.subscriptions.push(this.bus.subscribe(Subjects.execution('*'), plan, { queue: QueueGroups.schedulers }));
      }
      if (this.parts.ownSweepTimer) {
        this.sweepTimer = setInterval(() => void this.sweepLogged(), this.config.scheduler.sweepMs);
        this.sweepTimer.unref();
      }
      // fireTimer wakes the scheduler itself; a timer it did not fire was not due, or is fired already or by a sweep.
      lane?.start((timerId, scope) =>
        this.tenant(scope)
          .sweeper!.fireTimer(timerId)
          .then(() => undefined),
      );
      // Resume what a previous process left: unplanned events, due timers, expired leases.
      void this.sweepLogged();
    }
    if (worker && this.parts.listen) {
      const offer = offerHandlers(worker);
      for (const subjects of offerSubjects(offeredTenant(this.config, this.roles), worker.workerId, this.config.worker)) {
        this.subscriptions.push(this.bus.subscribe(subjects.work, offer.work, { queue: QueueGroups.workers }));
        this.subscriptions.push(this.bus.subscribe(subjects.frames, offer.frames, { queue: QueueGroups.workers }));
      }
    }
    worker?.start();
    this.parts.feed?.start();
  }
}

function isTerminalStatus(status: ExecutionStatus): boolean {
  return status !== 'RUNNING';
}
