import type { Json } from './json';
import type { Task } from './task';

export interface FramePolicy {
  maxRows: number;
  maxSeconds: number;
  maxBytes: number;
  leaseSeconds: number;
  heartbeatSeconds: number;
  /** row: the body runs once per row; frame: once per frame with `frame.rows`. */
  process: 'row' | 'frame';
  /** Attempts of a whole frame after a crash or lease loss. */
  maxAttempts: number;
  rowConcurrency: number;
}

export const DEFAULT_FRAME_POLICY: FramePolicy = {
  maxRows: 1,
  maxSeconds: 30,
  maxBytes: 64 * 1024 * 1024,
  leaseSeconds: 120,
  heartbeatSeconds: 30,
  process: 'row',
  maxAttempts: 3,
  rowConcurrency: 1,
};

export interface CursorSpec {
  kind: 'postgres';
  auth?: string;
  connection?: string;
  /** Claim SQL, rendered with `__frame_max_rows`, `execution_id` and the context. */
  claim: string;
}

export type LoopSource = { kind: 'collection'; in: Json } | { kind: 'cursor'; cursor: CursorSpec };

/** The per-iteration side effect: a full tool, or the seeds' table form. */
export type Sink =
  | { kind: 'task'; task: Task }
  | {
      kind: 'table';
      auth?: string;
      connection?: string;
      table: string;
      /** Row to write; default: the iteration's result object. */
      args?: Json;
      mode: 'insert' | 'upsert';
      key?: string[];
    };

export interface LoopSpec {
  source: LoopSource;
  /** Bound as `iter.<iterator>` and as bare `<iterator>`. */
  iterator: string;
  mode: 'sequential' | 'parallel' | 'cursor';
  /**
   * An integer, or a template rendered to a positive integer when the loop
   * starts. Absent: a fan-out's every item at once, a parallel loop's
   * DEFAULT_PARALLEL_MAX_IN_FLIGHT frames, else one.
   */
  maxInFlight?: number | string;
  /** `loop_mode: fanout`: one independent command per item (DSL.md s4.2). */
  fanout: boolean;
  maxShardRetries: number;
  frame: FramePolicy;
  sink?: Sink;
}
