/**
 * Reports and claims that send no read. With the scheduler in this process,
 * a command's report or claim may take the command's row as the execution
 * state this process holds has it, instead of reading it under the lock:
 * the transaction is then one message, its plan included, behind a guard
 * that checks under the lock what the read would have
 * (CommandRepository.expectReport, expectClaim). When the guard finds
 * otherwise (another process appended, the lease moved), it fails the
 * transaction with SqlState.NotAsExpected, and the write goes again with
 * the read (`expecting`).
 */
import type { CommandState, ExecutionState, JsonObject } from '@noetl/event-kernel';
import {
  SqlState,
  sqlStateOf,
  type CommandRepository,
  type CommandRow,
  type LedgerTransaction,
  type LockedCommand,
  type TenantScope,
} from '@noetl/storage';
import type { RuntimeMetrics } from '../metrics';
import type { CommandOwners } from '../state/command-owners';
import { leaseTokenHash, type Holder } from './lease-token';

/** An execution's state as this process's scheduler last committed it, at `version`, its stream's head then (Scheduler.heldState). */
export interface HeldState {
  state: ExecutionState;
  version: number;
}

/** What a report or claim of a command takes as known: its execution's stream at `head`, the command as the state has it. */
interface Expected {
  executionId: string;
  head: number;
  command: CommandState;
}

/** A claim's, with the spec the command was issued with. */
interface ExpectedClaim extends Expected {
  spec: JsonObject;
}

/** Where expectations come from: what this process issued (`owners`) and the states its scheduler holds. */
interface Expectations {
  owners: CommandOwners;
  held: (executionId: string) => HeldState | undefined;
}

function expected(expectations: Expectations, commandId: string, status: CommandState['status']): Expected | undefined {
  const executionId = expectations.owners.ownerOf(commandId);
  const point = executionId === undefined ? undefined : expectations.held(executionId);
  const command = point?.state.commands[commandId];
  if (!point || point.state.status !== 'RUNNING' || command?.status !== status) return undefined;
  // A copy: a pass of the execution folds into its state in place meanwhile (what the guard then refuses).
  return { executionId: point.state.executionId, head: point.version, command: { ...command } };
}

/** A report of `commandId` by `workerId`: the state has the command running for that worker. */
function expectedReport(expectations: Expectations, commandId: string, workerId: string): Expected | undefined {
  const report = expected(expectations, commandId, 'RUNNING');
  return report?.command.workerId === workerId ? report : undefined;
}

/** A claim of `commandId`: the state has it issued, and this process issued it (it knows its spec). */
function expectedClaim(expectations: Expectations, commandId: string): ExpectedClaim | undefined {
  const spec = expectations.owners.specOf(commandId);
  const claim = spec ? expected(expectations, commandId, 'ISSUED') : undefined;
  return claim && spec ? { ...claim, spec } : undefined;
}

/**
 * The command's row as the report would have read it, held by the worker of
 * `holder` with its lease token; in the read's stead, the guard that checks
 * so under the lock is queued (CommandRepository.expectReport).
 */
async function expectedHeld(
  q: LedgerTransaction,
  rows: CommandRepository,
  scope: TenantScope,
  report: Expected,
  holder: Holder,
): Promise<CommandRow> {
  const tokenHash = leaseTokenHash(holder.lease_token);
  await rows.expectReport(q, scope, {
    commandId: report.command.commandId,
    executionId: report.executionId,
    workerId: holder.worker_id,
    tokenHash,
    head: report.head,
  });
  return { ...rowOf(report, null), status: 'RUNNING', worker_id: holder.worker_id, lease_token: tokenHash };
}

/** The command's row as the claim would have read it, ISSUED; in the read's stead, its guard is queued (CommandRepository.expectClaim). */
async function expectedIssued(
  q: LedgerTransaction,
  rows: CommandRepository,
  scope: TenantScope,
  claim: ExpectedClaim,
): Promise<LockedCommand> {
  await rows.expectClaim(q, scope, { commandId: claim.command.commandId, executionId: claim.executionId, head: claim.head });
  return { ...rowOf(claim, claim.spec), execution_ended: false };
}

function rowOf({ executionId, command }: Expected, spec: JsonObject | null): CommandRow {
  return {
    command_id: command.commandId,
    execution_id: executionId,
    step: command.step,
    run_id: command.runId,
    kind: command.kind,
    attempt: command.attempt,
    max_attempts: command.maxAttempts,
    status: command.status,
    spec,
    worker_id: command.workerId ?? null,
    lease_until: command.leaseUntil ? new Date(command.leaseUntil) : null,
    lease_token: null,
    created_at: new Date(command.issuedAt),
    loop_id: command.loopId ?? null,
    iteration: command.iteration ?? null,
  };
}

/**
 * Runs `write` expecting `expectation` when there is one; when its guard
 * finds the command or its stream not so, `write` goes again with the row
 * read under the lock, as any report or claim (counted in `rereads`).
 */
async function expecting<E, T>(
  expectation: E | undefined,
  metrics: RuntimeMetrics,
  write: (expectation: E | undefined) => Promise<T>,
): Promise<T> {
  try {
    return await write(expectation);
  } catch (error) {
    if (expectation === undefined || sqlStateOf(error) !== SqlState.NotAsExpected) throw error;
    metrics.rereads.inc();
    return write(undefined);
  }
}

/** How a write gets its command's row: read under the lock, or expected (its guard queued). */
export type RowOf<R extends CommandRow> = (q: LedgerTransaction) => Promise<R>;

/**
 * The command row each report or claim of a LocalControlPlane works on:
 * expected from the state this process holds when it can be, else read
 * under the lock (`locked`); a write whose expectation the guard refused
 * goes again with the read.
 */
export class ExpectedWrites {
  constructor(
    private readonly expectations: Expectations | undefined,
    private readonly deps: { commandRows: CommandRepository; scope: TenantScope; metrics: RuntimeMetrics },
    private readonly locked: (q: LedgerTransaction, commandId: string) => Promise<LockedCommand>,
  ) {}

  /** `write` (a report of `commandId`, given how to get its row), expecting the row when `holder` holds it here. */
  report<T>(commandId: string, holder: Holder | null, write: (row: RowOf<CommandRow>) => Promise<T>): Promise<T> {
    const { commandRows, scope, metrics } = this.deps;
    const report = holder && this.expectations ? expectedReport(this.expectations, commandId, holder.worker_id) : undefined;
    return expecting(report, metrics, (known) =>
      write(known && holder ? (q) => expectedHeld(q, commandRows, scope, known, holder) : (q) => this.locked(q, commandId)),
    );
  }

  /** `write` (a claim of `commandId`, given how to get its row), expecting the row when this process issued it. */
  claim<T>(commandId: string, write: (row: RowOf<LockedCommand>) => Promise<T>): Promise<T> {
    const { commandRows, scope, metrics } = this.deps;
    const claim = this.expectations ? expectedClaim(this.expectations, commandId) : undefined;
    return expecting(claim, metrics, (known) =>
      write(known ? (q) => expectedIssued(q, commandRows, scope, known) : (q) => this.locked(q, commandId)),
    );
  }
}
