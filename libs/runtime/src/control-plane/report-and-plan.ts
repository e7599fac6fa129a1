import { RenderSliceExceeded } from '@noetl/dsl';
import { SqlState, sqlStateOf, type Database, type LedgerTransaction } from '@noetl/storage';
import type { Logger } from 'pino';
import { notifyExecution, type Bus } from '../bus/bus';
import type { Ledger } from '../ledger';
import type { RuntimeMetrics } from '../metrics';
import { RuntimeError } from '../runtime-error';
import type { HandOver } from '../scheduler/eager-claims';
import type { PlannedPass } from '../scheduler/scheduler-types';

export interface ReportAndPlanDeps {
  db: Database;
  ledger: Ledger;
  bus: Bus;
  metrics: RuntimeMetrics;
  /** With the scheduler role in this process: plans the execution inside the report's transaction (Scheduler.planWithin). */
  planWithin?: (q: LedgerTransaction, executionId: string, after?: string) => Promise<PlannedPass | undefined>;
  /** Where a report that had to go alone says why. */
  logger: Logger;
}

/**
 * Runs a control-plane write's transaction (`report` appends a report or a
 * claim and returns its execution) and, with the scheduler in this process,
 * plans the execution in the same transaction, then `next` (the next frame
 * of a stage, claimed for the reporting worker; a claim's assembly from the
 * planned state); after the commit, the plan's effects and what `next`
 * handed over. When that transaction fails for anything but a refusal of
 * the write, the write goes again alone, and the scheduler is notified, as
 * a remote one would be: planning or `next` never keep a report from
 * landing. `reported`: the command or frame whose run reports (its slot may
 * take the next command). Resolves whether `next` handed something over.
 */
export async function reportAndPlan(
  deps: ReportAndPlanDeps,
  reported: string | undefined,
  report: (q: LedgerTransaction) => Promise<string>,
  next?: (q: LedgerTransaction, executionId: string, planned: PlannedPass | undefined) => Promise<HandOver | undefined>,
): Promise<boolean> {
  const { db, ledger, metrics, planWithin } = deps;
  let planned: PlannedPass | undefined;
  let handed: HandOver | undefined;
  if (planWithin || next) {
    try {
      const executionId = await db.transaction(async (q) => {
        const id = await report(q);
        if (planWithin) planned = await metrics.span('plan', () => planWithin(q, id, reported));
        handed = await next?.(q, id, planned);
        return id;
      });
      if (planned) planned.committed();
      else notifyExecution(deps.bus, ledger.scope, executionId);
      handed?.committed();
      return handed !== undefined;
    } catch (error) {
      planned?.rolledBack();
      handed?.rolledBack();
      // A refusal of the write is the caller's to answer; so is an expectation of the row not met (ExpectedWrites reads it and goes again).
      if (error instanceof RuntimeError || sqlStateOf(error) === SqlState.NotAsExpected) throw error;
      // The report must not wait on the plan: it goes again alone, and the scheduler's own pass plans
      // (a render too heavy for the event loop among them: see Scheduler.settleRender).
      if (!(error instanceof RenderSliceExceeded))
        deps.logger.warn({ err: error, reported }, 'a report and its planning failed together; the report goes again alone');
    }
  }
  const executionId = await db.transaction(report);
  notifyExecution(deps.bus, ledger.scope, executionId);
  return false;
}
