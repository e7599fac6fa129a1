import { applyEvent, type ExecutionState } from '@noetl/event-kernel';
import type { Queryable } from '@noetl/storage';
import type { Ledger } from '../ledger';

/** Events read from the ledger at a time while catching up. */
const READ_CHUNK = 1000;

interface Entry {
  state: ExecutionState;
  version: number;
}

/**
 * Folded execution states, cached by execution and brought up to date from
 * the ledger on every read (only the events after the cached version are
 * folded). A miss or a restart rebuilds from the first event. The cache is an
 * accelerator (invariant 1): drop it and nothing is lost.
 */
export class ExecutionStates {
  private readonly entries = new Map<string, Entry>();
  /** One catch-up at a time per execution, so no event is folded twice into a shared state. */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly ledger: Ledger,
    private readonly capacity = 512,
  ) {}

  /**
   * Runs `read` on the state with every event `q` can see (undefined when
   * the execution has no events: unknown). The state is the cache's own, not
   * a copy (copying a large state per read made every claim O(state)): no
   * catch-up folds into it while `read` runs, and `read` must not change it
   * or keep it after it resolves.
   */
  async read<T>(q: Queryable, executionId: string, read: (state: ExecutionState | undefined) => Promise<T> | T): Promise<T> {
    return this.exclusive(executionId, async () => read((await this.catchUp(q, executionId))?.state));
  }

  /** Forget an execution (after a rolled-back transaction folded events nobody else will see). */
  forget(executionId: string): void {
    this.entries.delete(executionId);
  }

  private async catchUp(q: Queryable, executionId: string): Promise<Entry | undefined> {
    let entry = this.entries.get(executionId);
    for (;;) {
      const events = await this.ledger.readAfter(q, executionId, entry?.version ?? 0, READ_CHUNK);
      if (events.length === 0) break;
      let state = entry?.state;
      let version = entry?.version ?? 0;
      for (const event of events) {
        state = applyEvent(state, event);
        version = event.stream_version;
      }
      entry = { state: state as ExecutionState, version };
      // A short read reached the end of the stream as this read saw it: asking again would return nothing.
      if (events.length < READ_CHUNK) break;
    }
    if (!entry) return undefined;
    this.entries.delete(executionId);
    this.entries.set(executionId, entry);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return entry;
  }

  private async exclusive<T>(executionId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(executionId) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(executionId, settled);
    try {
      return await run;
    } finally {
      if (this.locks.get(executionId) === settled) this.locks.delete(executionId);
    }
  }
}
