import { RenderSliceExceeded, SIGNAL_NAME } from '@noetl/dsl';
import { EventType, isTerminalExecutionEvent, type Json, type JsonObject, type LedgerEvent } from '@noetl/event-kernel';
import type { Database, ExecutionCountFilter, ExecutionRepository, LedgerTransaction, Queryable, TenantRepository } from '@noetl/storage';
import { notifyExecution, type Bus } from '../bus/bus';
import type { CatalogService } from '../catalog/catalog.service';
import type { Ledger } from '../ledger';
import type { RuntimeMetrics } from '../metrics';
import { RuntimeError, notFound } from '../runtime-error';
import type { ProjectedStates } from '../projection/projected-states';
import type { PlannedPass } from '../scheduler/scheduler-types';
import type { ExecutionStates } from '../state/execution-states';
import type { PayloadCache } from '../state/payload-cache';
import { deepMerge } from './deep-merge';
import { timelineOf, type TimelineBar } from './execution-timeline';
import { eventView, executionDetail } from './execution-view';
import { rerunSource, type RerunSource } from './rerun-source';
import type {
  CancelRequest,
  DeliveredSignal,
  EventPage,
  ExecutionDetail,
  ExecutionPage,
  ExecutionSummary,
  ListEventsQuery,
  ExecutionCounts,
  ExecutionFilter,
  ListExecutionsQuery,
  RerunRequest,
  StartExecutionRequest,
  StartedExecution,
} from './execution-types';

/** Who started a child execution: a `playbook` step's command, or a call inside a pipeline or loop body. */
export interface ParentLink {
  executionId: string;
  /** The step-level `playbook` command the child's end completes; absent for a call nested in a pipeline or frame. */
  commandId?: string;
  /** One child per key: a retried start returns the same child. */
  key: string;
}

/** The fire time of a schedule that starts an execution (`schedule.fired` records it). */
export interface ScheduleFire {
  scheduleId: string;
  fireTime: Date;
  /** Started by `POST /api/schedules/{id}/trigger`, not by the schedule's own time. */
  manual?: boolean;
}

/** What started an execution besides a request: a parent's call, a schedule's fire time, or a rerun of another. */
export interface StartOrigin {
  parent?: ParentLink;
  schedule?: ScheduleFire;
  rerun?: RerunSource;
}

/** An execution `startWithin` appended (or found, for a repeated idempotency key). */
export interface StartedWithin {
  executionId: string;
  /** False when the idempotency key had started it already. */
  created: boolean;
}

const MAX_PAGE = 1000;
const ID = /^\d{1,19}$/;

/** Starting, reading and cancelling executions: what the API and the CLI ask of the runtime. */
export class ExecutionService {
  /** Whether this process has recorded the tenant in `noetl.tenant` (its first start does, in its transaction). */
  private tenantRecorded = false;

  constructor(
    private readonly db: Database,
    private readonly ledger: Ledger,
    private readonly catalog: CatalogService,
    private readonly states: ExecutionStates,
    private readonly payloads: PayloadCache,
    private readonly bus: Bus,
    private readonly metrics: RuntimeMetrics,
    private readonly executionRows: ExecutionRepository,
    private readonly projected: ProjectedStates,
    private readonly tenantRows: TenantRepository,
    /** A signal's payload travels inline in its event and becomes the waiting step's result: at most this many bytes of JSON. */
    private readonly signalPayloadLimitBytes: number,
    /** How deep sub-playbooks nest and how many children one execution starts (NOETL_MAX_PLAYBOOK_DEPTH, NOETL_MAX_CHILD_EXECUTIONS). */
    private readonly limits: { playbookDepth: number; childExecutions: number },
    /** With the scheduler role in this process: plans a new execution in the transaction that starts it (see Scheduler.planWithin). */
    private readonly planWithin?: (q: LedgerTransaction, executionId: string) => Promise<PlannedPass | undefined>,
  ) {}

  /**
   * Starts an execution in one transaction (`startWithin`), then tells the
   * schedulers. A child start is idempotent per parent command; `within`
   * runs in the same transaction when the execution is new.
   */
  start(request: StartExecutionRequest, parent?: ParentLink, within?: (q: Queryable) => Promise<void>): Promise<StartedExecution> {
    return this.startInTransaction((q) => this.startWithin(q, request, parent ? { parent } : {}, true), within);
  }

  /**
   * Starts a new execution that re-runs an ended one (Temporal's reset,
   * DBOS's fork): the same playbook version, the original's workload with
   * `payload` merged over it, and from `from_step` on, the original's step
   * results and ctx from before that step (rerun-source.ts), all written in
   * the new execution's `execution.started` so that its own ledger rebuilds
   * it. It runs from `from_step` (else from the start) as any execution
   * does. A running original is `execution_running`: cancel it first, so two
   * runs never repeat the same side effects side by side.
   */
  async rerun(executionId: string, request: RerunRequest): Promise<StartedExecution> {
    if (!ID.test(executionId)) throw notFound('execution', executionId);
    return this.startInTransaction(async (q) => {
      if (!(await this.executionRows.exists(q, this.ledger.scope, executionId))) throw notFound('execution', executionId);
      // Under the original's stream lock, which a purge takes too: the copy reads its events all before a purge, or what one left.
      await this.ledger.lockStream(q, executionId);
      if (!(await this.ledger.hasEnded(q, executionId))) {
        throw new RuntimeError(
          'execution_running',
          `execution ${executionId} is still running; cancel it (or let it end) before re-running it`,
        );
      }
      const rerun = await rerunSource(q, this.ledger, this.catalog, executionId, request.from_step);
      return this.startWithin(q, { catalog_id: rerun.catalogId, ...(request.payload ? { payload: request.payload } : {}) }, { rerun });
    });
  }

  /**
   * Runs `startIn` in a transaction, with `within` and the new execution's first plan when it is new, then announces it.
   * A first plan that needs a render too heavy for the event loop does not wait for it in the transaction: the execution
   * starts again without it, and the scheduler's own pass plans it (see Scheduler.settleRender).
   */
  private async startInTransaction(
    startIn: (q: LedgerTransaction) => Promise<StartedWithin>,
    within?: (q: Queryable) => Promise<void>,
    plans = true,
  ): Promise<StartedExecution> {
    let planned: PlannedPass | undefined;
    let started: StartedWithin;
    try {
      started = await this.db.transaction(async (q) => {
        const result = await startIn(q);
        if (result.created) {
          await within?.(q);
          if (plans) planned = await this.planWithin?.(q, result.executionId);
        }
        return result;
      });
    } catch (error) {
      planned?.rolledBack();
      if (error instanceof RenderSliceExceeded) return this.startInTransaction(startIn, within, false);
      // A newer version of the path was registered since this process read it: the catalog is read this time.
      if (this.catalog.forgotStaleLatest(error)) return this.startInTransaction(startIn, within, plans);
      throw error;
    }
    if (planned) {
      this.counted(started);
      planned.committed();
    } else {
      this.announce(started);
    }
    return { execution_id: started.executionId, status: 'RUNNING' };
  }

  /**
   * Appends `execution.started` (workload = the playbook's, or a rerun's
   * original's, deep-merged with the payload; a rerun's copied state) and
   * the execution row in the caller's transaction `q`, and
   * `schedule.fired` right after it for a schedule's fire time. Its
   * idempotency key (`child-of:<key>`, `schedule:<id>:<fire time>`) makes a
   * repeated start return the first execution, `created: false`. The caller
   * commits, then calls `announce`. `expectLatest`: a path's latest version
   * is checked, not read (CatalogService.resolve, forgotStaleLatest).
   */
  async startWithin(
    q: LedgerTransaction,
    request: StartExecutionRequest,
    origin: StartOrigin,
    expectLatest = false,
  ): Promise<StartedWithin> {
    const payload: unknown = request.payload ?? {};
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new RuntimeError('invalid_payload', 'payload must be a JSON object (it is merged over the playbook workload)');
    }
    const { parent, schedule, rerun } = origin;
    const { entry, playbook } = await this.catalog.resolve(request, q, expectLatest ? q : undefined);
    const executionId = this.ledger.ids.next();
    const workload = deepMerge(rerun?.workload ?? playbook.workload, payload as JsonObject);
    const idempotencyKey = parent ? `child-of:${parent.key}` : schedule ? scheduleFireKey(schedule) : null;
    await this.ledger.lockNewStream(q, executionId);
    // A start without a key cannot be a duplicate: its events go with the transaction's next statement (the plan's).
    const defer = idempotencyKey === null;
    const [result] = await this.ledger.append(
      q,
      [
        {
          type: EventType.ExecutionStarted,
          executionId,
          parentExecutionId: parent?.executionId ?? null,
          idempotencyKey,
          payload: {
            path: entry.path,
            version: entry.version,
            catalog_id: entry.catalog_id,
            workload,
            ...(parent ? { parent_execution_id: parent.executionId } : {}),
            ...(parent?.commandId ? { parent_command_id: parent.commandId } : {}),
            ...(rerun ? { rerun_of: rerun.origin } : {}),
            ...(rerun?.seed ? { seed: { results: rerun.seed.results, ctx: deepMerge(rerun.seed.ctx, payload as JsonObject) } } : {}),
          },
        },
        ...(schedule
          ? [
              {
                type: EventType.ScheduleFired,
                executionId,
                idempotencyKey: `fired:${scheduleFireKey(schedule)}`,
                payload: {
                  schedule_id: schedule.scheduleId,
                  fire_time: schedule.fireTime.toISOString(),
                  ...(schedule.manual ? { manual: true } : {}),
                },
              } as const,
            ]
          : []),
      ],
      { defer },
    );
    if (!result) throw new Error('append returned no result');
    if (result.duplicate) return { executionId: result.event.execution_id, created: false };
    await this.executionRows.insert(q, this.ledger.scope, {
      executionId,
      parentExecutionId: parent?.executionId ?? null,
      parentCommandId: parent?.commandId ?? null,
      ...(rerun ? { rerunOf: rerun.origin.execution_id } : {}),
      catalogId: entry.catalog_id,
      path: entry.path,
      version: entry.version,
      workload,
      startedAt: result.event.event_time,
    });
    if (parent) await this.withinChildLimits(q, parent.executionId, entry.path);
    if (!this.tenantRecorded) await this.tenantRows.register(q, this.ledger.scope);
    return { executionId, created: true };
  }

  /** After `startWithin`'s transaction committed: counts a new execution and tells the schedulers. */
  announce(started: StartedWithin): void {
    this.counted(started);
    notifyExecution(this.bus, this.ledger.scope, started.executionId);
  }

  private counted(started: StartedWithin): void {
    if (!started.created) return;
    this.metrics.executionsStarted.inc();
    this.tenantRecorded = true;
  }

  /**
   * A new child of `parentId` (its row already written, in `q`) may not nest
   * deeper than the depth limit below its root, nor be one child too many:
   * `limit_exceeded`, and the transaction starts nothing. A playbook that
   * calls itself stops there, and its chain fails, step by step, saying why.
   */
  private async withinChildLimits(q: Queryable, parentId: string, path: string): Promise<void> {
    const { playbookDepth, childExecutions } = this.limits;
    const depth = await this.executionRows.chainLength(q, parentId, playbookDepth + 1);
    if (depth > playbookDepth) {
      throw new RuntimeError(
        'limit_exceeded',
        `sub-playbook ${path} would run ${depth} levels below its root execution; the limit is ${playbookDepth} (NOETL_MAX_PLAYBOOK_DEPTH): does a playbook call itself?`,
      );
    }
    const children = await this.executionRows.childCount(q, parentId);
    if (children > childExecutions) {
      throw new RuntimeError(
        'limit_exceeded',
        `execution ${parentId} would start its child execution number ${children}; the limit is ${childExecutions} (NOETL_MAX_CHILD_EXECUTIONS)`,
      );
    }
  }

  /** Read from the execution's projection, plus what the projector has not folded yet: current, and one row when it keeps up. */
  async get(executionId: string): Promise<ExecutionDetail> {
    if (!ID.test(executionId)) throw notFound('execution', executionId);
    const state = await this.projected.read(this.db, executionId);
    if (!state) throw notFound('execution', executionId);
    const result: Json | null = state.resultRef ? await this.payloads.get(state.resultRef) : (state.result ?? null);
    return executionDetail(state, result, await this.executionRows.reruns(this.db, this.ledger.scope, executionId));
  }

  /** The latest result of a step (resolved from the payload store when stored by reference); undefined when it has none. */
  async stepResult(executionId: string, step: string): Promise<Json | undefined> {
    const stored = await this.states.read(this.db, executionId, (state) => state?.results[step]);
    if (!stored) return undefined;
    return stored.ref ? this.payloads.get(stored.ref) : structuredClone(stored.value);
  }

  async list(query: ListExecutionsQuery): Promise<ExecutionPage> {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), MAX_PAGE);
    if (query.cursor !== undefined && !ID.test(query.cursor))
      throw new RuntimeError('invalid_request', 'cursor is not one this API returned');
    const rows = await this.executionRows.list(this.db, this.ledger.scope, {
      ...countFilterOf(query),
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.cursor !== undefined ? { before: query.cursor } : {}),
      limit,
    });
    const page = rows.slice(0, limit).map((row): ExecutionSummary => ({
      execution_id: row.execution_id,
      parent_execution_id: row.parent_execution_id,
      path: row.path,
      version: row.version,
      status: row.status,
      started_at: row.started_at?.toISOString() ?? null,
      completed_at: row.completed_at?.toISOString() ?? null,
    }));
    return { executions: page, next_cursor: rows.length > limit ? (page[page.length - 1]?.execution_id ?? null) : null };
  }

  /** How many executions the filter selects, per status (0 for a status with none). */
  async counts(filter: ExecutionFilter): Promise<ExecutionCounts> {
    const counts = await this.executionRows.countByStatus(this.db, this.ledger.scope, countFilterOf(filter));
    return { RUNNING: counts.RUNNING ?? 0, COMPLETED: counts.COMPLETED ?? 0, FAILED: counts.FAILED ?? 0, CANCELLED: counts.CANCELLED ?? 0 };
  }

  /** Ledger order is stream order: an event committed later never appears before one already listed. */
  async events(executionId: string, query: ListEventsQuery): Promise<EventPage> {
    if (!ID.test(executionId) || !(await this.exists(executionId))) throw notFound('execution', executionId);
    if (query.after !== undefined && !ID.test(query.after)) throw new RuntimeError('invalid_request', '"after" must be an event id');
    if (query.after !== undefined && query.afterPosition !== undefined)
      throw new RuntimeError('invalid_request', 'give at most one of after and after_position');
    const limit = Math.min(Math.max(query.limit ?? 100, 1), MAX_PAGE);
    const stored = await this.ledger.page(this.db, executionId, {
      ...(query.after !== undefined ? { afterEventId: query.after } : {}),
      ...(query.afterPosition !== undefined ? { afterPosition: query.afterPosition } : {}),
      ...(query.type ? { types: query.type } : {}),
      limit,
    });
    const events = stored.map(eventView);
    return { events, next_after: events.length === limit ? (events[events.length - 1]?.event_id ?? null) : null };
  }

  /** The Gantt of its commands, frame attempts, retries and waits, from its whole ledger (GET /api/executions/{id}/timeline). */
  async timeline(executionId: string): Promise<TimelineBar[]> {
    if (!ID.test(executionId) || !(await this.exists(executionId))) throw notFound('execution', executionId);
    const events: LedgerEvent[] = [];
    for (let after = 0; ;) {
      const page = await this.ledger.readAfter(this.db, executionId, after, MAX_PAGE);
      events.push(...page);
      if (page.length < MAX_PAGE) return timelineOf(events);
      after = page[page.length - 1]!.stream_version;
    }
  }

  /**
   * Appends `execution.cancelled`; the scheduler then cancels its open
   * commands and children. Cancelling twice is fine; cancelling an execution
   * that already ended is `already_terminal`.
   */
  async cancel(executionId: string, request: CancelRequest): Promise<void> {
    if (!ID.test(executionId) || !(await this.exists(executionId))) throw notFound('execution', executionId);
    const [result] = await this.db.transaction((q) =>
      this.ledger.append(q, [
        {
          type: EventType.ExecutionCancelled,
          executionId,
          idempotencyKey: `cancel:${executionId}`,
          payload: { ...(request.reason ? { reason: request.reason } : {}), ...(request.by ? { by: request.by } : {}) },
        },
      ]),
    );
    if (
      result?.duplicate &&
      isTerminalExecutionEvent(result.event.event_type) &&
      result.event.event_type !== EventType.ExecutionCancelled
    ) {
      throw new RuntimeError('already_terminal', `execution ${executionId} already ended (${result.event.event_type})`);
    }
    notifyExecution(this.bus, this.ledger.scope, executionId);
  }

  /**
   * Delivers a signal (`signal.received`): a step waiting for `name` takes
   * it, or it is kept until one does. Under the stream lock, so it lands
   * before the execution's end or not at all: a finished execution is
   * `already_terminal`. An `idempotencyKey` makes a repeated delivery return
   * the first one.
   */
  async signal(executionId: string, name: string, payload: Json, idempotencyKey?: string): Promise<DeliveredSignal> {
    if (!ID.test(executionId)) throw notFound('execution', executionId);
    if (!SIGNAL_NAME.test(name)) {
      throw new RuntimeError('invalid_request', `"${name}" is not a signal name (letters, digits, "_", "-", ".", ":"; at most 128)`);
    }
    const bytes = Buffer.byteLength(JSON.stringify(payload));
    if (bytes > this.signalPayloadLimitBytes) {
      throw new RuntimeError(
        'invalid_payload',
        `the signal payload is ${bytes} bytes; at most ${this.signalPayloadLimitBytes} (NOETL_PAYLOAD_INLINE_LIMIT) travel in a signal`,
      );
    }
    const event = await this.db.transaction(async (q) => {
      await this.ledger.lockStream(q, executionId);
      if (!(await this.executionRows.exists(q, this.ledger.scope, executionId))) throw notFound('execution', executionId);
      if (await this.ledger.hasEnded(q, executionId))
        throw new RuntimeError('already_terminal', `execution ${executionId} already ended; it takes no more signals`);
      const [result] = await this.ledger.append(q, [
        {
          type: EventType.SignalReceived,
          executionId,
          idempotencyKey: idempotencyKey === undefined ? null : `signal:${executionId}:${idempotencyKey}`,
          payload: { name, payload },
        },
      ]);
      if (!result) throw new Error('append returned no result');
      return result.event;
    });
    notifyExecution(this.bus, this.ledger.scope, executionId);
    return { execution_id: executionId, signal: name, event_id: event.event_id };
  }

  private exists(executionId: string): Promise<boolean> {
    return this.executionRows.exists(this.db, this.ledger.scope, executionId);
  }
}

/** One execution per fire time of a schedule (a manual trigger is its own kind of fire). */
function scheduleFireKey(fire: ScheduleFire): string {
  return `schedule:${fire.scheduleId}:${fire.manual ? 'trigger:' : ''}${fire.fireTime.toISOString()}`;
}

function countFilterOf(filter: ExecutionFilter): ExecutionCountFilter {
  if (filter.parent !== undefined && !ID.test(filter.parent)) throw new RuntimeError('invalid_request', 'parent is not an execution id');
  return {
    ...(filter.path !== undefined ? { path: filter.path } : {}),
    ...(filter.parent !== undefined ? { parentId: filter.parent } : {}),
    ...(filter.started_after !== undefined ? { startedAfter: filter.started_after } : {}),
    ...(filter.started_before !== undefined ? { startedBefore: filter.started_before } : {}),
  };
}
