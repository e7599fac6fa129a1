import type { JsonObject } from '@noetl/event-kernel';
import type { Playbook, Step } from '../model';
import { isJsonObject, toPlainJson } from '../scope';
import { maxRowsOf } from './frame-policy';
import { keychainReferences } from './keychain-refs';
import { resolveWorkbookTasks } from './resolve-workbook';
import { stepPool } from './work-pool';

/**
 * What a worker needs to interpret a loop step's body for a frame (DSL.md
 * s4), unrendered, like a command's spec: the body's tool (workbook calls
 * resolved), input, every `retry:` policy (a failing row is retried in
 * process by the error-side ones), the iterator name, the frame policy and
 * the per-iteration sink (inside `loop:` or on the step), a cursor
 * loop's claim (DSL.md s4.3), and the keychain entries all of these read.
 * A fan-out shard's command carries it as its spec (DSL.md s4.2); `pool` is the
 * worker pool its frames or shards go to.
 */
export function loopBodySpec(playbook: Playbook, step: Step): JsonObject {
  const loop = step.loop;
  const body = {
    step: step.name,
    tool: step.tool ? resolveWorkbookTasks(playbook, step.tool, step.name) : null,
    input: step.input,
    retry: step.retry,
    iterator: loop?.iterator ?? 'item',
    process: loop?.frame.process ?? 'row',
    row_concurrency: loop?.frame.rowConcurrency ?? 1,
    max_rows: loop ? maxRowsOf(loop.frame) : 1,
    sink: loop?.sink ?? step.sink ?? null,
    cursor: loop?.source.kind === 'cursor' ? loop.source.cursor : null,
  };
  const keychain = keychainReferences(playbook.keychain, body);
  const pool = stepPool(playbook, step);
  const spec = toPlainJson({ ...body, ...(keychain.length > 0 ? { keychain } : {}), ...(pool !== undefined ? { pool } : {}) });
  return isJsonObject(spec) ? spec : {};
}
