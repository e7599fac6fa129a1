import { isJsonObject, readLoopBodySpec, runFrame, toCallErrorInfo, toPlainJson, withResultViews, type LoopBodySpec } from '@noetl/dsl';
import type { ClaimedCommand, ShardItem } from '../control-plane/control-plane';
import { callReportOf, eventErrorOf } from './call-errors';
import type { CommandReport, WorkerRun } from './command-runner';
import { loopBodyArgs } from './frame-runner';

/**
 * Runs a fan-out shard's command (DSL.md s4.2): the loop body for its one
 * item, as a row of a frame is run (the iteration in scope, in-process error
 * retries, the per-iteration sink), always once per item. The row's outcome
 * is the command's: COMPLETED with its result, or FAILED with its error (the
 * scheduler re-issues a shard that has runs left). Scrubbed of the run's secrets.
 */
export async function runShard(command: ClaimedCommand, shard: ShardItem, signal: AbortSignal, run: WorkerRun): Promise<CommandReport> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  let spec: LoopBodySpec;
  let scope: Record<string, unknown>;
  try {
    spec = readLoopBodySpec(command.spec, command.step);
    scope = await run.scopeWithKeychain(spec, withResultViews(command.scope, command.result_views ?? {}), signal);
  } catch (error) {
    return run.secrets.scrub({
      status: 'FAILED',
      request: { error: eventErrorOf(toCallErrorInfo(error), command.step), duration_ms: elapsed() },
    });
  }
  const outcome = await runFrame(
    {
      ...loopBodyArgs(spec),
      process: 'row',
      rows: [shard.item],
      firstIndex: shard.index,
      total: shard.total,
      frameIndex: shard.index,
      scope,
      signal,
      recordCalls: true,
    },
    run.interpreter,
  );
  const row = outcome.rows[0];
  const ctx = toPlainJson(outcome.ctx);
  const common = { ...(isJsonObject(ctx) ? { ctx } : {}), calls: outcome.calls.map(callReportOf), duration_ms: elapsed() };
  const report: CommandReport =
    row?.status === 'ok'
      ? { status: 'COMPLETED', request: { result: toPlainJson(row.result), ...common } }
      : {
          status: 'FAILED',
          request: {
            error: eventErrorOf(row?.error ?? { kind: 'internal', message: 'the shard ran no row', retryable: false }, command.step),
            ...common,
          },
        };
  return run.secrets.scrub(report);
}
