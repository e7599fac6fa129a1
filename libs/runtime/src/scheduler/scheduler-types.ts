import type { ExpressionEngine, InlineSliceOptions, OffloadRender } from '@noetl/dsl';
import type { ExecutionState } from '@noetl/event-kernel';
import type { Database, PayloadStore, Queryable } from '@noetl/storage';
import type { Logger } from 'pino';
import type { Bus } from '../bus/bus';
import type { Offers } from '../bus/offers';
import type { CatalogService } from '../catalog/catalog.service';
import type { Ledger } from '../ledger';
import type { RuntimeMetrics } from '../metrics';
import type { CommandOwners } from '../state/command-owners';
import type { PayloadCache } from '../state/payload-cache';
import type { LocalSlots } from './eager-claims';
import type { ArmedTimer, EventRows } from './materialize';

export interface SchedulerDeps {
  db: Database;
  ledger: Ledger;
  catalog: CatalogService;
  payloads: PayloadCache;
  /** The payload store on the pass's connection: refs are read, and a loop collection above `inlineLimitBytes` is stored, through it. */
  payloadStoreWithin: (q: Queryable) => PayloadStore;
  inlineLimitBytes: number;
  /** More items than this and a loop's collection is stored in parts (NOETL_COLLECTION_OFFLOAD_ITEMS). */
  offloadItems: number;
  /** Items one loop may iterate (NOETL_MAX_LOOP_ITEMS). */
  maxLoopItems: number;
  expressions: ExpressionEngine;
  /** The planner's inline slice, and where a render past it goes (issue 25 item 7; see SettledRenderCache). */
  renders: { slice: InlineSliceOptions; offload: OffloadRender };
  bus: Bus;
  offers: Offers;
  metrics: RuntimeMetrics;
  logger: Logger;
  followUps: SchedulerFollowUps;
  /** The derived rows each planned event writes, and the execution row holding the cursor. */
  rows: EventRows;
  /** This process's worker, when it has one that reports here: commands it can run are claimed for it as they are issued. */
  slots?: LocalSlots;
  /** The lease of such a claim (NOETL_LEASE_SECONDS, as a worker's own claim). */
  leaseMs: number;
  /** Where the commands it issues are remembered with their execution (the control plane's reports look them up there). */
  owners: CommandOwners;
  random?: () => number;
}

/** A planning pass done inside a caller's transaction: what it leaves for after that transaction. */
export interface PlannedPass {
  /** The execution's state after the pass; the caller may read it (not change it) until it calls `committed()`. */
  readonly state: ExecutionState;
  /** The transaction committed: cache the state, offer the work, hand the eager claims over, arm the timers. */
  committed(): void;
  /** It rolled back: the slots reserved for eager claims are given back. */
  rolledBack(): void;
}

/** What happens outside the pass's transaction once it committed (the sweeper's business). */
export interface SchedulerFollowUps {
  /** A durable timer was written: fire it when due. */
  timerArmed(timer: ArmedTimer): void;
  /** A command was cancelled: cancel its child execution, if it has one. */
  commandCancelled(commandId: string): void;
  /** The execution reached a terminal status: report to its parent command, cancel its children. */
  executionEnded(state: ExecutionState): void;
}
