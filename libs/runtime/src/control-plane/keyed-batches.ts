/**
 * Work that queues per key while a batch of that key is in flight, and goes
 * together in the next batch: under a lock every item of a key waits for
 * anyway (an execution's stream), a batch grows with the wait instead of each
 * item taking its turn. `run` settles its batch's items itself and never throws.
 */
export class KeyedBatches<T> {
  private readonly waiting = new Map<string, T[]>();

  constructor(
    private readonly maxBatch: number,
    private readonly run: (key: string, batch: T[]) => Promise<void>,
  ) {}

  add(key: string, item: T): void {
    const waiting = this.waiting.get(key);
    if (waiting) {
      waiting.push(item);
      return;
    }
    this.waiting.set(key, [item]);
    void this.drain(key);
  }

  /** Runs the key's queue, batch after batch, until it is empty. */
  private async drain(key: string): Promise<void> {
    const waiting = this.waiting.get(key)!;
    while (waiting.length > 0) await this.run(key, waiting.splice(0, this.maxBatch));
    this.waiting.delete(key);
  }
}
