import { Client } from 'pg';

interface Totals {
  calls: number;
  ms: number;
  rows: number;
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Time and rows of each SQL text this process sends, by wrapping pg's
 * Client.query (pg_stat_statements needs a server preload the bench cannot
 * assume). Callback and promise forms both.
 */
export class StatementTimes {
  private totals = new Map<string, Totals>();

  private constructor(private readonly original: QueryFn) {}

  static install(): StatementTimes {
    const proto = Client.prototype as unknown as { query: QueryFn };
    const times = new StatementTimes(proto.query);
    const original = proto.query;
    proto.query = function (this: unknown, ...args: unknown[]): unknown {
      const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string } | undefined)?.text ?? '?');
      const began = performance.now();
      const record = (result: unknown): void =>
        times.record(text, performance.now() - began, (result as { rowCount?: number } | undefined)?.rowCount ?? 0);
      const callbackAt = args.findIndex((arg) => typeof arg === 'function');
      if (callbackAt >= 0) {
        const callback = args[callbackAt] as (error: unknown, result: unknown) => void;
        args[callbackAt] = (error: unknown, result: unknown) => {
          record(result);
          callback(error, result);
        };
        return original.apply(this, args);
      }
      const answer = original.apply(this, args);
      if (answer instanceof Promise) answer.then(record, () => undefined);
      return answer;
    };
    return times;
  }

  uninstall(): void {
    (Client.prototype as unknown as { query: QueryFn }).query = this.original;
  }

  reset(): void {
    this.totals.clear();
  }

  private record(text: string, ms: number, rows: number): void {
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 160);
    const totals = this.totals.get(key) ?? { calls: 0, ms: 0, rows: 0 };
    totals.calls++;
    totals.ms += ms;
    totals.rows += rows;
    this.totals.set(key, totals);
  }

  /** The `limit` statements that took the most time: calls per unit, total ms, rows per call. */
  top(units: number, limit: number): string[] {
    return [...this.totals]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, limit)
      .map(([text, t]) => `${(t.calls / units).toFixed(2)}/step ${Math.round(t.ms)} ms ${(t.rows / t.calls).toFixed(1)} rows: ${text}`);
  }
}
