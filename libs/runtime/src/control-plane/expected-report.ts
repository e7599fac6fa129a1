import type { CommandState } from '@noetl/event-kernel';
import { SqlState, sqlStateOf, type CommandRepository, type CommandRow, type LedgerTransaction, type TenantScope } from '@noetl/storage';
import { leaseTokenHash, type Holder } from './lease-token';
import { reportAndPlan, type ReportAndPlanDeps } from './report-and-plan';

/**
 * What a report of a command can take as known instead of reading it under
 * the lock (LocalControlPlane.finish): this process holds the command's
 * execution state at `head`, its stream's head when that state was
 * committed, and the state has the command running for the reporting
 * worker. The report then goes in one message with its plan, behind a guard
 * that checks both under the lock (CommandRepository.expectReport).
 */
export interface ExpectedReport {
  executionId: string;
  head: number;
  command: CommandState;
}

/** Where the expectation comes from: the scheduler of this process (Scheduler.expectedReport). */
export type ExpectReport = (commandId: string, workerId: string) => ExpectedReport | undefined;

/**
 * The command's row as the report would have read it, held by the worker of
 * `holder` with its lease token; in the read's stead, the guard that checks
 * so under the lock is queued (CommandRepository.expectReport).
 */
export async function expectedCommand(
  q: LedgerTransaction,
  rows: CommandRepository,
  scope: TenantScope,
  expected: ExpectedReport,
  holder: Holder,
): Promise<CommandRow> {
  const { command } = expected;
  const tokenHash = leaseTokenHash(holder.lease_token);
  await rows.expectReport(q, scope, {
    commandId: command.commandId,
    executionId: expected.executionId,
    workerId: holder.worker_id,
    tokenHash,
    head: expected.head,
  });
  return {
    command_id: command.commandId,
    execution_id: expected.executionId,
    step: command.step,
    run_id: command.runId,
    kind: command.kind,
    attempt: command.attempt,
    max_attempts: command.maxAttempts,
    status: command.status,
    spec: null,
    worker_id: holder.worker_id,
    lease_until: command.leaseUntil ? new Date(command.leaseUntil) : null,
    lease_token: tokenHash,
    created_at: new Date(command.issuedAt),
    loop_id: command.loopId ?? null,
    iteration: command.iteration ?? null,
  };
}

/**
 * A report (`report`, given what it may take as known) planned in its
 * transaction, expecting `expected` when there is one; when its guard finds
 * the command or its stream not so (another process appended, the lease
 * moved), it goes again with the row read under the lock, as any report.
 */
export async function reportExpecting(
  deps: ReportAndPlanDeps,
  commandId: string,
  expected: ExpectedReport | undefined,
  report: (expected: ExpectedReport | undefined) => (q: LedgerTransaction) => Promise<string>,
): Promise<void> {
  try {
    await reportAndPlan(deps, commandId, report(expected));
  } catch (error) {
    if (!expected || sqlStateOf(error) !== SqlState.ReportNotAsExpected) throw error;
    deps.metrics.reportsReread.inc();
    await reportAndPlan(deps, commandId, report(undefined));
  }
}
