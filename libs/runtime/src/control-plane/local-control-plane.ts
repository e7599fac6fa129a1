import { EventType, type EventDraft, type EventTypeName } from '@noetl/event-kernel';
import { credentialRefs, type JsonObject } from '@noetl/dsl';
import {
  isTerminalCommand,
  putJson,
  type CommandRepository,
  type CommandRow,
  type Database,
  type LedgerTransaction,
  type LockedCommand,
  type FrameRepository,
  type PayloadStore,
  type Queryable,
  type StageRepository,
  type WorkerReport,
  type WorkerRepository,
} from '@noetl/storage';
import type { DatabaseIdentity } from '@noetl/tools';
import { notifyExecution, type Bus } from '../bus/bus';
import { workOf, type Offers } from '../bus/offers';
import { assertClaimFits } from './claim-fit';
import type { CatalogService } from '../catalog/catalog.service';
import type { CredentialStore, CredentialUse } from '../credentials/credential-types';
import type { ExecutionService } from '../executions/execution.service';
import type { Ledger } from '../ledger';
import type { RuntimeMetrics } from '../metrics';
import { RuntimeError, notFound } from '../runtime-error';
import type { LocalSlots } from '../scheduler/eager-claims';
import type { PlannedPass } from '../scheduler/scheduler-types';
import type { CommandOwners } from '../state/command-owners';
import type { ExecutionStates } from '../state/execution-states';
import type { PayloadCache } from '../state/payload-cache';
import { claimedCommand, claimScope } from './claimed-command';
import { reportAndPlan, type ReportAndPlanDeps } from './report-and-plan';
import { callDrafts, commandWhere, storedResult, terminalDraft, type CommandOutcome } from './command-outcome';
import { storableOutcome } from './storable-reports';
import { streamBacklog, type StreamBacklog } from './stream-backlog';
import { LocalFrames } from './local-frames';
import { readLedgerIdentity } from './ledger-identity';
import { assertNamesCredential, holdsLease, newLeaseToken, type Holder } from './lease-token';
import { ExpectedWrites, type HeldState, type RowOf } from './expected-writes';
import { alreadyTerminal, assertCommandHolder, usableCommand } from './command-holding';
import { childOutcome } from '../executions/child-outcome';
import { KEEP_STOPPED_MS } from '../worker-registry/worker-directory';
import {
  DEFAULT_LEASE_MS,
  type ChildOutcomeRequest,
  type ChildOutcomeView,
  type ClaimRequest,
  type ClaimedCommand,
  type ClaimedFrame,
  type CommitFrameRequest,
  type CompleteRequest,
  type ControlPlane,
  type CredentialRequest,
  type FailRequest,
  type HeartbeatResult,
  type LeaseRequest,
  type NestedChildRequest,
  type PartialRequest,
  type RecordCallsRequest,
  type ResolvedCredential,
  type StartChildRequest,
} from './control-plane';

export interface LocalControlPlaneDeps extends ReportAndPlanDeps {
  db: Database;
  ledger: Ledger;
  states: ExecutionStates;
  catalog: CatalogService;
  payloads: PayloadCache;
  payloadStore: PayloadStore;
  /** The payload store on one transaction's connection (code holding a lock must not wait for a second connection). */
  payloadStoreWithin: (q: Queryable) => PayloadStore;
  inlineLimitBytes: number;
  /** A loop's rows from this index on commit their results to the payload store (NOETL_LOOP_INLINE_RESULTS). */
  inlineLoopResults: number;
  credentials: CredentialStore;
  executions: ExecutionService;
  bus: Bus;
  metrics: RuntimeMetrics;
  commandRows: CommandRepository;
  frameRows: FrameRepository;
  stageRows: StageRepository;
  workerRows: WorkerRepository;
  offers: Offers;
  /** The executions of commands this process issued, so a report locks its stream without looking it up. */
  owners: CommandOwners;
  /** This process's worker, when it reports here: a frame's commit claims the stage's next frame for it. */
  slots?: LocalSlots;
  /** With the scheduler role in this process: the execution states it holds, from which a report or claim may be sent without a read (expected-writes.ts). */
  held?: (executionId: string) => HeldState | undefined;
}

/**
 * The control plane on the database. Every call locks the command row, so
 * reports on one command are serialised; the row's status says whether a
 * report is still acceptable (DESIGN.md invariant 4). Events and the row
 * change in one transaction; the scheduler is told after the commit.
 */
export class LocalControlPlane implements ControlPlane {
  private readonly frames: LocalFrames;
  private readonly writes: ExpectedWrites;

  constructor(private readonly deps: LocalControlPlaneDeps) {
    this.frames = new LocalFrames(deps, (executionId, spec) => this.scopeOf(executionId, spec));
    const { held, owners, commandRows, ledger, metrics } = deps;
    this.writes = new ExpectedWrites(held && { owners, held }, { commandRows, scope: ledger.scope, metrics }, (q, id) =>
      this.locked(q, id),
    );
  }

  claimFrame(stageId: string, request: ClaimRequest): Promise<ClaimedFrame | null> {
    return this.frames.claim(stageId, request);
  }

  heartbeatFrame(frameId: string, request: LeaseRequest): Promise<HeartbeatResult> {
    return this.frames.heartbeat(frameId, request);
  }

  commitFrame(frameId: string, request: CommitFrameRequest): Promise<void> {
    return this.frames.commit(frameId, request);
  }

  failFrame(frameId: string, request: FailRequest): Promise<void> {
    return this.frames.fail(frameId, request);
  }

  async resolveFrameCredential(frameId: string, request: CredentialRequest): Promise<ResolvedCredential> {
    const frame = await this.frames.held(frameId, request);
    assertNamesCredential(
      frame.credentials === null ? null : { names: frame.credentials, templated: false },
      request.name,
      `frame ${frameId}`,
    );
    return this.deps.credentials.resolve(
      request.name,
      await this.credentialUse(frame.execution_id, frame.step_name, { kind: 'frame', id: frameId }, request.worker_id),
    );
  }

  /**
   * Leases the command to the worker; with the scheduler in this process,
   * the claim is planned in its own transaction (the scheduler's state then
   * stands at the claim, and the claimed command's scope is built from it
   * there, with nothing read back).
   */
  async claim(commandId: string, request: ClaimRequest): Promise<ClaimedCommand> {
    const { ledger } = this.deps;
    const leaseMs = request.lease_ms ?? DEFAULT_LEASE_MS;
    let claimed: { command: LockedCommand; leaseUntil: Date; token: string } | undefined;
    let assembled: ClaimedCommand | undefined;
    const claimIn =
      (row: RowOf<LockedCommand>) =>
      async (q: LedgerTransaction): Promise<string> => {
        assembled = undefined;
        const command = await row(q);
        assertClaimFits(`command ${commandId}`, request, workOf(command.spec ?? {}));
        if (command.status !== 'ISSUED') {
          // A repeated claim gets its lease back only with the token the first one returned: a worker id is public.
          if (
            (command.status === 'RUNNING' || command.status === 'CLAIMED') &&
            request.lease_token !== undefined &&
            holdsLease(command, request as Holder)
          ) {
            claimed = { command, leaseUntil: command.lease_until ?? ledger.now(), token: request.lease_token };
            return command.execution_id;
          }
          throw new RuntimeError('already_claimed', `command ${commandId} is ${command.status} (worker ${command.worker_id ?? '-'})`);
        }
        const leaseUntil = new Date(ledger.now().getTime() + leaseMs);
        const token = newLeaseToken();
        const lease = { worker_id: request.worker_id, lease_until: leaseUntil.toISOString() };
        await ledger.append(q, [this.draft(command, EventType.CommandClaimed, { ...lease, attempt: command.attempt, started: true })], {
          defer: true,
        });
        await this.deps.commandRows.markRunning(q, commandId, { workerId: request.worker_id, leaseUntil, tokenHash: token.hash });
        this.deps.metrics.claimLatency.observe((ledger.now().getTime() - command.created_at.getTime()) / 1000);
        claimed = { command, leaseUntil, token: token.token };
        return command.execution_id;
      };
    const fromPlan = async (q: Queryable, _executionId: string, planned: PlannedPass | undefined): Promise<undefined> => {
      assembled =
        planned && claimed
          ? await claimedCommand(claimed.command, claimed, planned.state, this.deps, this.deps.payloadStoreWithin(q))
          : undefined;
      return undefined;
    };
    // Without the scheduler here a claim is not planned (nor announced): the report that follows it is.
    if (this.deps.planWithin) await this.writes.claim(commandId, (row) => reportAndPlan(this.deps, undefined, claimIn(row), fromPlan));
    else await this.deps.db.transaction(claimIn((q) => this.locked(q, commandId)));
    const lease = claimed!;
    return (
      assembled ??
      this.deps.states.read(this.deps.db, lease.command.execution_id, (state) => {
        if (!state) throw notFound('execution', lease.command.execution_id);
        return claimedCommand(lease.command, lease, state, this.deps);
      })
    );
  }

  async heartbeat(commandId: string, request: LeaseRequest): Promise<HeartbeatResult> {
    const { db, ledger } = this.deps;
    return db.transaction(async (q) => {
      const command = await this.locked(q, commandId, { allowEnded: true });
      if (command.status === 'CANCELLED' || command.execution_ended) {
        return { lease_until: ledger.now().toISOString(), cancelled: true };
      }
      if (isTerminalCommand(command.status)) throw alreadyTerminal(command);
      assertCommandHolder(command, request);
      const leaseUntil = new Date(ledger.now().getTime() + (request.lease_ms ?? DEFAULT_LEASE_MS));
      await ledger.append(q, [
        this.draft(command, EventType.CommandHeartbeat, {
          worker_id: request.worker_id,
          lease_until: leaseUntil.toISOString(),
          ...(request.alone === false ? { alone: false } : {}),
        }),
      ]);
      await this.deps.commandRows.setLease(q, commandId, leaseUntil);
      return { lease_until: leaseUntil.toISOString(), cancelled: false };
    });
  }

  async complete(commandId: string, request: CompleteRequest): Promise<void> {
    await this.finish(commandId, request, {
      status: 'COMPLETED',
      ...(request.result !== undefined ? { result: request.result } : {}),
      ...(request.ctx ? { ctx: request.ctx } : {}),
      ...(request.calls ? { calls: request.calls } : {}),
      ...(request.duration_ms !== undefined ? { durationMs: request.duration_ms } : {}),
      ...(request.output ? { output: request.output } : {}),
    });
  }

  async fail(commandId: string, request: FailRequest): Promise<void> {
    await this.finish(commandId, request, {
      status: 'FAILED',
      error: request.error,
      ...(request.ctx ? { ctx: request.ctx } : {}),
      ...(request.calls ? { calls: request.calls } : {}),
      ...(request.duration_ms !== undefined ? { durationMs: request.duration_ms } : {}),
      ...(request.output ? { output: request.output } : {}),
    });
  }

  /**
   * Ends a command. `holder` null: the runtime itself reports (a child
   * execution ended), which needs no lease.
   */
  async finish(commandId: string, holder: Holder | null, reported: CommandOutcome): Promise<void> {
    const { ledger, payloadStore, inlineLimitBytes } = this.deps;
    const outcome = storableOutcome(reported);
    // A large result is stored first, outside the transaction: a lock holder never waits for a second connection.
    const stored = await storedResult(outcome, { store: payloadStore, scope: ledger.scope, inlineLimitBytes });
    const report =
      (row: RowOf<CommandRow>) =>
      async (q: LedgerTransaction): Promise<string> => {
        const command = await row(q);
        if (holder !== null) assertCommandHolder(command, holder);
        const terminal = terminalDraft(command, outcome, stored);
        // Deferred: they go in with the decisions the scheduler appends in this transaction, in one statement.
        const appended = await ledger.append(q, [terminal], { defer: true });
        const event = appended[appended.length - 1]?.event;
        await this.deps.commandRows.end(q, commandId, outcome.status, event?.event_id ?? null);
        return command.execution_id;
      };
    await this.writes.report(commandId, holder, (row) => reportAndPlan(this.deps, commandId, report(row)));
    this.deps.owners.forget(commandId);
    this.deps.metrics.commandsFinished.inc({ status: outcome.status });
  }

  async startChild(commandId: string, request: StartChildRequest): Promise<{ execution_id: string }> {
    const command = await this.deps.db.transaction(async (q) => {
      const row = await this.locked(q, commandId);
      assertCommandHolder(row, request);
      return row;
    });
    // The child's start and the command's release of its lease are one transaction:
    // a crash leaves either a leased command (re-run, same idempotent child) or a started child and no lease.
    const started = await this.deps.executions.start(
      { path: request.path, ...(request.version !== undefined ? { version: request.version } : {}), payload: request.payload ?? {} },
      { executionId: command.execution_id, commandId, key: commandId },
      (q) => this.deps.commandRows.setLease(q, commandId, null),
    );
    return { execution_id: started.execution_id };
  }

  async startNestedChild(request: NestedChildRequest): Promise<{ execution_id: string }> {
    const { holder } = request;
    const executionId = await this.heldExecution(request);
    const started = await this.deps.executions.start(
      { path: request.path, ...(request.version !== undefined ? { version: request.version } : {}), payload: request.payload ?? {} },
      { executionId, key: `${holder.kind}:${holder.id}:${request.key}` },
    );
    return { execution_id: started.execution_id };
  }

  async childOutcome(executionId: string, request: ChildOutcomeRequest): Promise<ChildOutcomeView> {
    const { executions } = this.deps;
    const parent = await this.heldExecution(request);
    const detail = await executions.get(executionId);
    // Not a child of the caller's execution: as if there were none, so the answer says nothing of it.
    if (detail.parent_execution_id !== parent) throw notFound('execution', executionId);
    if (detail.status === 'RUNNING') return { status: 'RUNNING' };
    const returnStep = request.return_step;
    const outcome = childOutcome({
      detail,
      ...(returnStep !== undefined ? { returnStep, stepResult: await executions.stepResult(executionId, returnStep) } : {}),
    });
    return outcome.status === 'COMPLETED'
      ? { status: 'COMPLETED', result: outcome.result ?? null }
      : { status: 'FAILED', error: outcome.error };
  }

  /** The execution of the command or frame `request` proves its worker holds (read without a lock: it changes nothing). */
  private async heldExecution(request: Pick<NestedChildRequest, 'worker_id' | 'lease_token' | 'holder'>): Promise<string> {
    const { holder } = request;
    if (holder.kind === 'frame') return (await this.frames.held(holder.id, request)).execution_id;
    const command = usableCommand(holder.id, await this.deps.commandRows.read(this.deps.db, this.deps.ledger.scope, holder.id));
    assertCommandHolder(command, request);
    return command.execution_id;
  }

  async recordCalls(commandId: string, request: RecordCallsRequest): Promise<void> {
    await this.deps.db.transaction(async (q) => {
      const command = await this.locked(q, commandId);
      assertCommandHolder(command, request);
      await this.deps.ledger.append(q, callDrafts(command, request.calls));
    });
  }

  async reportPartial(commandId: string, request: PartialRequest): Promise<StreamBacklog> {
    const { db, ledger, payloadStore } = this.deps;
    // Stored first, outside the transaction (content-addressed: a retried report writes it once).
    const rowsRef = await putJson(payloadStore, request.rows, ledger.scope);
    const executionId = await db.transaction(async (q) => {
      const command = await this.locked(q, commandId);
      assertCommandHolder(command, request);
      await ledger.append(q, [
        {
          ...commandWhere(command),
          type: EventType.CallPartial,
          idempotencyKey: `partial:${commandId}:${request.chunk_index}`,
          payload: {
            task: command.step,
            chunk_index: request.chunk_index,
            has_more: request.has_more,
            row_count: request.rows.length,
            columns: request.columns,
            rows_ref: rowsRef,
          },
        },
      ]);
      return command.execution_id;
    });
    notifyExecution(this.deps.bus, ledger.scope, executionId);
    return streamBacklog(this.deps, executionId, commandId);
  }

  async streamBacklog(commandId: string, request: Holder): Promise<StreamBacklog> {
    const command = usableCommand(commandId, await this.deps.commandRows.read(this.deps.db, this.deps.ledger.scope, commandId));
    assertCommandHolder(command, request);
    return streamBacklog(this.deps, command.execution_id, commandId);
  }

  async release(commandId: string, request: LeaseRequest): Promise<void> {
    const { db, ledger } = this.deps;
    const command = await db.transaction(async (q) => {
      const locked = await this.locked(q, commandId);
      assertCommandHolder(locked, request);
      await ledger.append(q, [
        this.draft(locked, EventType.CommandReleased, {
          worker_id: request.worker_id,
          attempt: locked.attempt,
          reason: 'released by its worker',
        }),
      ]);
      await this.deps.commandRows.release(q, commandId);
      return locked;
    });
    await this.deps.offers.command({ commandId, executionId: command.execution_id, runId: command.run_id, ...workOf(command.spec ?? {}) });
  }

  async reportWorker(report: WorkerReport): Promise<void> {
    await this.deps.workerRows.report(this.deps.db, this.deps.ledger.scope, report);
    // A stopping worker adds a stopped row: it clears the ones past their listing, so they do not pile up.
    if (report.status === 'STOPPED') await this.deps.workerRows.prune(this.deps.db, this.deps.ledger.scope, KEEP_STOPPED_MS);
  }

  releaseFrame(frameId: string, request: LeaseRequest): Promise<void> {
    return this.frames.release(frameId, request);
  }

  ledgerIdentity(): Promise<DatabaseIdentity> {
    return readLedgerIdentity(this.deps.db);
  }

  async resolveCredential(commandId: string, request: CredentialRequest): Promise<ResolvedCredential> {
    // Read without a lock: a look-up that changes nothing need not wait for the stream's lock.
    const command = usableCommand(commandId, await this.deps.commandRows.read(this.deps.db, this.deps.ledger.scope, commandId));
    assertCommandHolder(command, request);
    assertNamesCredential(credentialRefs(command.spec ?? {}), request.name, `command ${commandId}`);
    return this.deps.credentials.resolve(
      request.name,
      await this.credentialUse(command.execution_id, command.step, { kind: 'command', id: commandId }, request.worker_id),
    );
  }

  /** The use a credential is resolved for: the held work, and its execution's playbook path that the binding is checked against. */
  private async credentialUse(
    executionId: string,
    step: string,
    holder: CredentialUse['holder'],
    workerId: string,
  ): Promise<CredentialUse> {
    const path = await this.deps.states.read(this.deps.db, executionId, (state) => {
      if (!state) throw notFound('execution', executionId);
      return state.path;
    });
    return { executionId, path, step, holder, workerId };
  }

  /** `claimScope` of the execution's state as this process folds it now. */
  private scopeOf(executionId: string, spec: JsonObject): Promise<Pick<ClaimedCommand, 'scope' | 'result_views'>> {
    return this.deps.states.read(this.deps.db, executionId, (state) => {
      if (!state) throw notFound('execution', executionId);
      return claimScope(state, spec, this.deps);
    });
  }

  /**
   * The command row, locked after its stream (see Ledger.lockStream). A
   * command that ended, or whose execution ended, takes no more reports:
   * `already_terminal` (a cancelled command is left to the caller, so that a
   * heartbeat can say `cancelled`).
   */
  private async locked(q: LedgerTransaction, commandId: string, options: { allowEnded?: boolean } = {}): Promise<LockedCommand> {
    const { ledger } = this.deps;
    const command = await this.deps.commandRows.lock(q, ledger.scope, commandId, this.deps.owners.ownerOf(commandId));
    if (!command) throw notFound('command', commandId);
    return options.allowEnded ? command : usableCommand(commandId, command);
  }

  private draft<T extends EventTypeName>(command: CommandRow, type: T, payload: EventDraft<T>['payload']): EventDraft<EventTypeName> {
    return { type, ...commandWhere(command), payload } as EventDraft<EventTypeName>;
  }
}
