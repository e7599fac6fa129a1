/**
 * The contract between a worker and the tool runners (DSL.md s3). A tool gets a
 * config whose templates were already rendered and returns the raw result
 * (JSON-serialisable) or throws a classified `CallError`.
 */
export type OutputStream = 'stdout' | 'stderr';

export interface ToolContext {
  /** Cancellation or lease loss: tools abort promptly and throw kind `cancelled`. */
  signal: AbortSignal;
  executionId: string;
  /** Decrypted data of a stored credential. */
  resolveCredential(name: string): Promise<Record<string, unknown>>;
  /** NOETL_PYTHON=off -> false. */
  pythonEnabled: boolean;
  /** Full render scope, exposed to python as the `context` global and used for nothing else. */
  scope?: Record<string, unknown>;
  /** Receives what user code printed (python stdout/stderr, javascript console); never part of the result. */
  onOutput?(stream: OutputStream, text: string): void;
  /**
   * Receives each chunk of a streamed result (`postgres` with `stream`), in
   * order; the tool waits for it before it reads further, so at most about
   * two chunks are held. Absent where results cannot stream (a loop body).
   */
  onPartial?(chunk: StreamChunk): Promise<void>;
}

/** One chunk of a streamed result, reported as `call.partial`. */
export interface StreamChunk {
  /** From 0. */
  chunk_index: number;
  rows: Record<string, unknown>[];
  columns: string[];
  /** False for the last chunk. */
  has_more: boolean;
}

export interface Tool {
  readonly kind: string;
  run(config: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
  /** Releases what the tool holds (connection pools, agents). */
  close?(): Promise<void>;
}
