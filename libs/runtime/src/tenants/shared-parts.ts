import type { NoetlConfig, Role } from '@noetl/config';
import type { ExpressionEngine, InlineSliceOptions, OffloadRender } from '@noetl/dsl';
import { REDUCER_VERSION, type IdGenerator } from '@noetl/event-kernel';
import {
  CommandRepository,
  ExecutionRepository,
  FrameRepository,
  LeadershipRepository,
  LedgerCursorRepository,
  PayloadReferenceRepository,
  ProjectionRepository,
  ScheduleRepository,
  StageRepository,
  TenantRepository,
  TimerRepository,
  WorkerRepository,
  type Database,
  type PgEventStore,
} from '@noetl/storage';
import type { Logger } from 'pino';
import type { Bus } from '../bus/bus';
import type { CredentialCipher } from '../credentials/credential-cipher';
import type { DatabaseClock } from '../database-clock';
import type { RuntimeMetrics } from '../metrics';
import type { PayloadStores } from '../payload-stores';
import type { ProjectorTuning } from '../projection/projector';
import type { ProjectorMetrics } from '../projection/projector-metrics';
import type { RetryLane } from '../scheduler/retry-lane';
import type { LocalSlots } from '../scheduler/eager-claims';

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

/** The repositories of a process (they hold no state: one of each serves every tenant). */
export function rowRepositories(): Repositories {
  return {
    commandRows: new CommandRepository(),
    frameRows: new FrameRepository(),
    stageRows: new StageRepository(),
    timerRows: new TimerRepository(),
    executionRows: new ExecutionRepository(),
    workerRows: new WorkerRepository(),
    projections: new ProjectionRepository(REDUCER_VERSION),
    tenantRows: new TenantRepository(),
    scheduleRows: new ScheduleRepository(),
    leadership: new LeadershipRepository(),
    ledgerCursors: new LedgerCursorRepository(),
    payloadReferences: new PayloadReferenceRepository(),
  };
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
