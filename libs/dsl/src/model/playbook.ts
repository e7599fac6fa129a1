import type { ScheduleSpec } from '../schedule/schedule-spec';
import type { Json, JsonObject } from './json';
import type { LoopSpec, Sink } from './loop';
import type { Policy } from './policy';
import type { SetOp } from './set-op';
import type { Task, ToolSpec } from './task';

export interface Arc {
  step: string;
  /** Template or boolean; absent means true. */
  when?: string | boolean;
  set: SetOp[];
  /**
   * `call.partial`: fires once per chunk a streaming step emits, with `chunk`
   * in scope (DSL.md s3 `stream`). Absent: on the step's outcome.
   */
  on?: 'call.partial';
}

export interface Next {
  mode: 'exclusive' | 'inclusive';
  /** complete: a branch with no matching arc ends and counts toward completion; quiet: it ends silently. */
  onNoMatch: 'complete' | 'quiet';
  arcs: Arc[];
}

export interface Step {
  name: string;
  desc?: string;
  /** Step-level bindings (`input`, alias `args`), unrendered; reach the tool's input. */
  input: JsonObject;
  /** Absent: a routing step. */
  tool?: ToolSpec;
  loop?: LoopSpec;
  /** Unified `retry:` policies of the step (error side: durable; success side: in the worker). */
  retry: Policy[];
  set: SetOp[];
  next: Next;
  /** Per-iteration sink when it sits on the step instead of inside `loop:`. */
  sink?: Sink;
  /** The worker pool its commands and frames go to (`tool.pool`); absent: the playbook's default. */
  pool?: string;
  /** Step-level result options as written, e.g. `{output_select: [...]}` (three NoETL fixtures). */
  output?: JsonObject;
}

export interface WorkbookEntry {
  name: string;
  task: Task;
}

export interface KeychainEntry {
  name: string;
  /** The declaration as written (kind, credential, scope, ...). */
  spec: JsonObject;
}

export interface Playbook {
  apiVersion: string;
  kind: 'Playbook';
  name: string;
  /** Catalog path: `metadata.path`, else the name. */
  path: string;
  description?: string;
  metadata: JsonObject;
  workload: JsonObject;
  keychain: KeychainEntry[];
  workbook: WorkbookEntry[];
  /** `pool`: `executor.spec.pool`, the worker pool of every step that names none. */
  executor: { entryStep: string; finalStep?: string; pool?: string };
  /** In document order; names are unique. */
  steps: Step[];
  /** `metadata.schedule`: applied to the catalog's schedules when the playbook is registered. */
  schedule?: ScheduleSpec;
}

/** One registration problem: a path like `workflow[2].next.arcs[0].step`, the YAML position and a message. */
export interface Problem {
  path: string;
  line?: number;
  column?: number;
  message: string;
}

export type { Json };
