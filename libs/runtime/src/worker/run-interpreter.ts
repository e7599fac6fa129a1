import { CallError, isJsonObject, toPlainJson } from '@noetl/dsl';
import type { JsonObject } from '@noetl/event-kernel';
import type { StreamChunk } from '@noetl/tools';
import type { ControlPlane } from '../control-plane/control-plane';
import { RuntimeError } from '../runtime-error';
import { workerRun, type WorkerRun } from './command-runner';
import { runNestedChild } from './nested-child';
import type { OutputTail } from './output-tail';
import type { StreamPacer } from './stream-pacer';
import type { WorkerOptions } from './worker-options';

/** What every interpreter of a worker's runs shares: its tools and settings, its id, and its streams' pacer (made once, with the worker). */
export type InterpreterContext = Pick<WorkerOptions, 'tools' | 'render' | 'pythonEnabled' | 'logger'> & {
  workerId: string;
  pacer: StreamPacer;
};

/** A claimed command or frame, as its interpreter needs it. */
export interface HeldRun {
  executionId: string;
  step: string;
  scope: Record<string, unknown>;
  holder: { kind: 'command' | 'frame'; id: string };
  leaseToken: string;
  attempt: number;
}

/** The interpreter for one run of a command or frame; `playbook` calls in it start children keyed by attempt and order. */
export function interpreterFor(
  context: InterpreterContext,
  controlPlane: ControlPlane,
  run: HeldRun,
  resolveCredential: (name: string) => Promise<Record<string, unknown>>,
  printed?: OutputTail,
): WorkerRun {
  const { executionId, step, scope, holder, leaseToken, attempt } = run;
  const log = context.logger.child({ execution_id: executionId, step });
  let children = 0;
  return workerRun(
    {
      tools: context.tools,
      render: context.render,
      pythonEnabled: context.pythonEnabled,
      resolveCredential,
      onOutput: (stream, text) => {
        log.debug({ stream }, text);
        printed?.push(stream, text);
      },
      runChild: (config, signal) =>
        runNestedChild(
          controlPlane,
          { worker_id: context.workerId, lease_token: leaseToken, holder, key: `${attempt}:${children++}` },
          config,
          signal,
        ),
      // Only a step's own command streams; a frame's rows commit as one unit.
      ...(holder.kind === 'command'
        ? { onPartial: (chunk: StreamChunk) => reportPartial(context, controlPlane, holder.id, leaseToken, chunk) }
        : {}),
    },
    { executionId, step, scope },
  );
}

/**
 * A chunk of the command's streamed result, paced by its consumers (see
 * StreamPacer); a refused or failed report fails the call (its stream stops).
 */
async function reportPartial(
  context: InterpreterContext,
  controlPlane: ControlPlane,
  commandId: string,
  leaseToken: string,
  chunk: StreamChunk,
): Promise<void> {
  try {
    await context.pacer.report(
      controlPlane,
      commandId,
      { worker_id: context.workerId, lease_token: leaseToken },
      { ...chunk, rows: toPlainRows(chunk.rows) },
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CallError({
      kind: 'internal',
      message: `reporting chunk ${chunk.chunk_index} failed: ${message}`,
      retryable: !(error instanceof RuntimeError),
    });
  }
}

/** Rows as JSON objects (what pg gives, made plain). */
function toPlainRows(rows: Record<string, unknown>[]): JsonObject[] {
  return rows.map((row) => {
    const plain = toPlainJson(row);
    return isJsonObject(plain) ? plain : {};
  });
}
