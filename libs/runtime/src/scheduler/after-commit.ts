import type { ExecutionState } from '@noetl/event-kernel';
import { scopeFields, Subjects } from '../bus/bus';
import { recordExecution, recordStepRun } from '../tracing/execution-spans';
import type { Effects } from './materialize';
import type { SchedulerDeps } from './scheduler-types';

/** A committed pass's effects, outside its transaction: work offered, step runs and the execution's end recorded, timers and cancellations handed on. */
export function afterCommit(deps: SchedulerDeps, effects: Effects, terminal: ExecutionState | undefined): void {
  const { bus, offers, ledger, metrics } = deps;
  for (const work of effects.work) {
    metrics.commandsIssued.inc({ kind: work.kind });
    void offers.command({
      commandId: work.command_id,
      executionId: work.execution_id,
      runId: work.run_id,
      kinds: work.kinds,
      pool: work.pool,
      ...(work.alone ? { alone: true } : {}),
    });
  }
  for (const stage of effects.stages) {
    void offers.stage({
      stageId: stage.stage_id,
      executionId: stage.execution_id,
      runId: stage.run_id,
      slots: stage.slots,
      kinds: stage.kinds,
      pool: stage.pool,
    });
  }
  for (const { executionId, run } of effects.endedRuns) recordStepRun(executionId, run);
  for (const timer of effects.timers) deps.followUps.timerArmed(timer);
  for (const commandId of effects.cancelledCommands) deps.followUps.commandCancelled(commandId);
  if (terminal) {
    metrics.executionsFinished.inc({ status: terminal.status });
    bus.publish(Subjects.finished(ledger.scope.tenantId), {
      execution_id: terminal.executionId,
      status: terminal.status,
      ...scopeFields(ledger.scope),
    });
    deps.followUps.executionEnded(terminal);
    recordExecution(terminal);
  }
}
