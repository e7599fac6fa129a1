import type { DatabaseClock } from '../database-clock';
import type { NoetlConfig, Role } from '@noetl/config';
import type { ExpressionEngine, InlineSliceOptions, OffloadRender } from '@noetl/dsl';
import type { IdGenerator } from '@noetl/event-kernel';
import {
  type CommandRepository,
  type Database,
  type ExecutionRepository,
  type FrameRepository,
  type LeadershipRepository,
  type LedgerCursorRepository,
  type PayloadReferenceRepository,
  type PgEventStore,
  type LedgerTransaction,
  type ProjectionRepository,
  type ScheduleRepository,
  type StageRepository,
  type TenantRepository,
  type TenantScope,
  type TimerRepository,
  type WorkerRepository,
} from '@noetl/storage';
import type { Logger } from 'pino';
import { AdminService } from '../admin/admin.service';
import { ObjectCollector } from '../admin/object-collector';
import { notifyExecution, type Bus } from '../bus/bus';
import { Offers } from '../bus/offers';
import { CatalogService } from '../catalog/catalog.service';
import { LocalControlPlane } from '../control-plane/local-control-plane';
import type { CredentialCipher } from '../credentials/credential-cipher';
import type { CredentialStore } from '../credentials/credential-types';
import { PgCredentialStore } from '../credentials/pg-credential-store';
import { ExecutionService } from '../executions/execution.service';
import { Ledger } from '../ledger';
import type { RuntimeMetrics } from '../metrics';
import type { PayloadStores } from '../payload-stores';
import { ProjectedStates } from '../projection/projected-states';
import { Projector, type ProjectorTuning } from '../projection/projector';
import type { ProjectorMetrics } from '../projection/projector-metrics';
import { PROJECTION_SNAPSHOT_EVERY } from '../projection/rebuild';
import { Replay } from '../projection/replay';
import type { RetryLane } from '../scheduler/retry-lane';
import { DeclaredSchedules } from '../cron-schedules/declared-schedules';
import { ScheduleTicker } from '../cron-schedules/schedule-ticker';
import { ScheduleService } from '../cron-schedules/schedule.service';
import { Scheduler } from '../scheduler/scheduler';
import type { LocalSlots } from '../scheduler/eager-claims';
import { Sweeper } from '../scheduler/sweeper';
import { CommandOwners } from '../state/command-owners';
import { ExecutionStates } from '../state/execution-states';
import { PayloadCache } from '../state/payload-cache';
import { WorkerDirectory } from '../worker-registry/worker-directory';

/** A worker is a candidate for targeted offers while it reported within three of its beats. */
export const WORKER_REPORT_MS = 5_000;

/** The stateless repositories every tenant's services share. */
export interface Repositories {
  commandRows: CommandRepository;
  frameRows: FrameRepository;
  stageRows: StageRepository;
  timerRows: TimerRepository;
  executionRows: ExecutionRepository;
  workerRows: WorkerRepository;
  projections: ProjectionRepository;
  tenantRows: TenantRepository;
  scheduleRows: ScheduleRepository;
  leadership: LeadershipRepository;
  ledgerCursors: LedgerCursorRepository;
  payloadReferences: PayloadReferenceRepository;
}

/** What a process builds once and every tenant's runtime uses. */
export interface SharedParts {
  config: NoetlConfig;
  roles: readonly Role[];
  database: Database;
  store: PgEventStore;
  ids: IdGenerator;
  /** The database's clock as this process reads it: leases are granted and events timed on it. */
  clock: DatabaseClock;
  producer: string;
  metrics: RuntimeMetrics;
  bus: Bus;
  payloads: PayloadStores;
  /** Absent: credentials are locked here (a process that never decrypts, or one without NOETL_ENCRYPTION_KEY and none stored). */
  cipher: CredentialCipher | undefined;
  repositories: Repositories;
  expressions: ExpressionEngine;
  /** How much of a render the event loop does (NOETL_TEMPLATE_INLINE_MS, NOETL_TEMPLATE_INLINE_WORK). */
  inlineSlice: InlineSliceOptions;
  /** The renders past the inline slice, to a render thread (issue 25 item 7). */
  offloadRender: (role: 'scheduler' | 'worker') => OffloadRender;
  logger: Logger;
  /** The deployment's BullMQ lane, with Redis and the scheduler role. */
  lane?: RetryLane;
  /** With the projector role. */
  projectorMetrics?: ProjectorMetrics;
  /** EngineOptions.projectorTuning. */
  projectorTuning?: ProjectorTuning;
  /** Whether the scheduler role fires due schedules in its sweep (`noetl run`, a one-shot, does not). */
  firesSchedules: boolean;
  /** This process's worker, when it reports to this process's control plane: the scheduler claims work for it as it issues it. */
  localSlots?: LocalSlots;
}

/**
 * Everything the runtime does for ONE tenant and organization (DESIGN.md
 * invariant 7): each service is built with the scope and every query and
 * event it makes carries it, so a request served by one tenant's runtime
 * cannot read or change another's rows. A process builds one per scope it
 * meets (`Engine.tenant`), on first use: the API's callers, the tenants of
 * notifications, the running executions a sweep finds.
 */
export class TenantRuntime {
  readonly ledger: Ledger;
  readonly payloads: PayloadCache;
  readonly catalog: CatalogService;
  readonly executions: ExecutionService;
  readonly controlPlane: LocalControlPlane;
  readonly credentials: CredentialStore;
  readonly admin: AdminService;
  readonly replay: Replay;
  readonly workers: WorkerDirectory;
  readonly offers: Offers;
  readonly schedules: ScheduleService;
  /** With the scheduler role. */
  readonly scheduler?: Scheduler;
  readonly sweeper?: Sweeper;
  /** With the projector role. */
  readonly projector?: Projector;
  /** With an object tier: retention of the tenant's objects after purges. */
  readonly objectCollector?: ObjectCollector;

  constructor(
    readonly scope: TenantScope,
    shared: SharedParts,
  ) {
    const { config, roles, database: db, bus, metrics, repositories: repos } = shared;
    const { store: payloadStore, within: payloadStoreWithin } = shared.payloads;
    const rows = {
      commandRows: repos.commandRows,
      frameRows: repos.frameRows,
      stageRows: repos.stageRows,
      timerRows: repos.timerRows,
      executionRows: repos.executionRows,
    };
    const ledger = new Ledger(shared.store, shared.ids, scope, shared.producer, metrics, () => shared.clock.now());
    const payloads = new PayloadCache(payloadStore, scope);
    const states = new ExecutionStates(ledger);
    const owners = new CommandOwners();
    const offers = new Offers({ db, bus, workerRows: repos.workerRows, scope, freshMs: 3 * WORKER_REPORT_MS });
    const declared = new DeclaredSchedules({ rows: repos.scheduleRows, ids: shared.ids, scope, now: () => ledger.now() });
    const catalog = new CatalogService(db, shared.ids, scope, (q, playbook) => declared.apply(q, playbook));
    const projected = new ProjectedStates(ledger, repos.projections);
    // The scheduler's follow-ups are the sweeper's, which needs the scheduler: the closures run only after both exist.
    let sweeper: Sweeper | undefined;
    const scheduler = roles.includes('scheduler')
      ? new Scheduler({
          db,
          ledger,
          catalog,
          payloads,
          payloadStoreWithin,
          inlineLimitBytes: config.payloads.inlineLimitBytes,
          offloadItems: config.payloads.offloadItems,
          maxLoopItems: config.limits.loopItems,
          expressions: shared.expressions,
          renders: { slice: shared.inlineSlice, offload: shared.offloadRender('scheduler') },
          bus,
          offers,
          metrics,
          logger: shared.logger.child({ role: 'scheduler', tenant: scope.tenantId }),
          rows,
          ...(shared.localSlots ? { slots: shared.localSlots } : {}),
          leaseMs: config.worker.leaseMs,
          owners,
          followUps: {
            timerArmed: (timer) => (shared.lane ? void shared.lane.schedule(timer.timerId, timer.dueAt, scope) : sweeper!.timerArmed(timer)),
            commandCancelled: (commandId) => sweeper!.commandCancelled(commandId),
            executionEnded: (state) => sweeper!.executionEnded(state),
          },
        })
      : undefined;
    this.scheduler = scheduler;
    const executions = new ExecutionService(
      db,
      ledger,
      catalog,
      states,
      payloads,
      bus,
      metrics,
      rows.executionRows,
      projected,
      repos.tenantRows,
      config.payloads.inlineLimitBytes,
      config.limits,
      scheduler && ((q, executionId) => scheduler.planWithin(q, executionId)),
    );
    const credentials = new PgCredentialStore(db, shared.cipher, scope);
    const controlPlane = new LocalControlPlane({
      db,
      ledger,
      states,
      catalog,
      payloads,
      payloadStore,
      payloadStoreWithin,
      inlineLimitBytes: config.payloads.inlineLimitBytes,
      inlineLoopResults: config.payloads.inlineLoopResults,
      credentials,
      executions,
      bus,
      metrics,
      ...rows,
      workerRows: repos.workerRows,
      offers,
      owners,
      logger: shared.logger.child({ role: 'control-plane', tenant: scope.tenantId }),
      ...(shared.localSlots ? { slots: shared.localSlots } : {}),
      // A report on this process is planned in its own transaction (see Scheduler.planWithin).
      ...(scheduler ? { planWithin: (q: LedgerTransaction, executionId: string, after?: string) => scheduler.planWithin(q, executionId, after) } : {}),
    });
    this.ledger = ledger;
    this.payloads = payloads;
    this.catalog = catalog;
    this.executions = executions;
    this.controlPlane = controlPlane;
    this.credentials = credentials;
    this.offers = offers;
    this.schedules = new ScheduleService({ db, ledger, rows: repos.scheduleRows, catalog, executions });
    const { objects } = shared.payloads;
    if (objects && config.payloads.s3) {
      this.objectCollector = ObjectCollector.forTenant({
        db,
        scope,
        collection: { objects, payloads: payloadStore, references: repos.payloadReferences, graceMs: config.payloads.s3.gcGraceMs },
        now: () => ledger.now(),
        logger: shared.logger.child({ role: 'retention', tenant: scope.tenantId }),
      });
    }
    this.admin = new AdminService({
      db,
      ledger,
      offers,
      notify: (executionId) => notifyExecution(bus, scope, executionId),
      ...rows,
      ...(this.objectCollector ? { objectCollector: this.objectCollector } : {}),
    });
    this.replay = new Replay(db, ledger, repos.projections, payloads);
    this.workers = new WorkerDirectory({ db, workerRows: repos.workerRows, commandRows: repos.commandRows, frameRows: repos.frameRows, scope, freshMs: 3 * WORKER_REPORT_MS });

    if (scheduler) {
      sweeper = new Sweeper(
        {
          db,
          ledger,
          bus,
          offers,
          executions,
          controlPlane,
          logger: shared.logger.child({ role: 'sweeper', tenant: scope.tenantId }),
          ...(shared.firesSchedules
            ? { schedules: new ScheduleTicker({ db, ledger, rows: repos.scheduleRows, executions, logger: shared.logger.child({ role: 'schedules', tenant: scope.tenantId }) }) }
            : {}),
          // A few sweeps' grace before an unclaimed command is offered again.
          renotifyAfterMs: Math.max(1000, config.scheduler.sweepMs * 5),
          // A leader silent for a few sweeps (and at least 5 s) is replaced.
          leadershipMs: Math.max(5000, config.scheduler.sweepMs * 5),
          leadership: repos.leadership,
          ...rows,
        },
        scheduler,
      );
      this.sweeper = sweeper;
    }
    if (shared.projectorMetrics) {
      this.projector = new Projector({
        db,
        ledger,
        projections: repos.projections,
        metrics: shared.projectorMetrics,
        shard: String(config.projector.shardIndex),
        snapshotEvery: PROJECTION_SNAPSHOT_EVERY,
        logger: shared.logger.child({ role: 'projector', tenant: scope.tenantId }),
        ...shared.projectorTuning,
      });
    }
  }

  /** Stops the sweeper's wake-ups and waits for the scheduler's passes in flight. */
  async stop(): Promise<void> {
    this.sweeper?.stop();
    await this.sweeper?.resign().catch(() => undefined); // its lease runs out instead
    await this.scheduler?.idle();
    await this.objectCollector?.idle();
  }
}

/** The key of a scope in maps. */
export function scopeKey(scope: TenantScope): string {
  return `${scope.tenantId}\u0000${scope.organizationId}`;
}
