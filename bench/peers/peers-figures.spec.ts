import { entrantsOf } from './plan';
import { perUnit, type DatabaseCounters } from './pg-stats';
import { figureOf, summarise, THIS, type RunResult } from './report';

const counters = (over: Partial<DatabaseCounters> = {}): DatabaseCounters => ({
  xact_commit: 0,
  xact_rollback: 0,
  tup_returned: 0,
  tup_fetched: 0,
  tup_inserted: 0,
  tup_updated: 0,
  tup_deleted: 0,
  ...over,
});

const run = (wallMs: number, maxRssKb = 102_400, transactions = 1): RunResult => ({
  wallMs,
  maxRssKb,
  perUnit: { transactions, inserted: 1, updated: 0, deleted: 0, fetched: 0, returned: 0 },
});

describe('bench:peers figures', () => {
  it('counts per unit what the run added beyond what starting and stopping the system adds', () => {
    const before = counters({ xact_commit: 1000, tup_inserted: 50 });
    // The idle child: 20 commits and 4 inserts of start-up and shutdown.
    const afterIdle = counters({ xact_commit: 1020, tup_inserted: 54 });
    // The run child: the same start-up and shutdown plus 100 steps of 3 commits and 2 inserts, one rolled back.
    const afterRun = counters({ xact_commit: 1340, xact_rollback: 1, tup_inserted: 258 });
    expect(perUnit(before, afterIdle, afterRun, 100)).toEqual({
      transactions: 3.01,
      inserted: 2,
      updated: 0,
      deleted: 0,
      fetched: 0,
      returned: 0,
    });
  });

  it('counts 0, not less, where the run grew a counter less than the idle child did', () => {
    const work = perUnit(counters(), counters({ tup_fetched: 30 }), counters({ tup_fetched: 50 }), 10);
    expect(work.fetched).toBe(0);
  });

  it('refuses counters that went back, as after a statistics reset', () => {
    expect(() => perUnit(counters({ xact_commit: 10 }), counters({ xact_commit: 12 }), counters({ xact_commit: 3 }), 1)).toThrow(
      /went back/,
    );
  });

  it('gives a chain in ms per step and the others per second', () => {
    expect(figureOf({ kind: 'chain', steps: 100 }, 450)).toBe(4.5);
    expect(figureOf({ kind: 'executions', count: 1000, steps: 3 }, 4000)).toBe(250);
    expect(figureOf({ kind: 'items', count: 10_000 }, 2000)).toBe(5000);
  });

  it('takes medians over the runs and divides this runtime by each peer', () => {
    const workload = { kind: 'chain', steps: 100 } as const;
    const [ours, peer, skipped] = summarise(workload, [
      { entrant: THIS, version: '0.1.0', shape: 'commands', runs: [run(3000, 204_800, 6), run(2000, 102_400, 5), run(9000, 409_600, 9)] },
      { entrant: 'peer', version: '1.0.0', shape: 'functions', runs: [run(500), run(400), run(600)] },
      { entrant: 'slow peer', version: '2.0.0', shape: '-', runs: [], skipped: 'too slow' },
    ]);
    expect(ours).toMatchObject({ figure: 30, ratio: 1, peak_rss_mb: 200, per_unit: { transactions: 6 } });
    expect(peer).toMatchObject({ figure: 5, ratio: 6, peak_rss_mb: 100 });
    expect(skipped).toMatchObject({ figure: null, ratio: null, per_unit: null, skipped: 'too slow' });
  });
});

describe('bench:peers plan', () => {
  const limited = (count: number) =>
    Object.fromEntries(
      entrantsOf({ kind: 'items', count }, '/noetl.js', '/peers').map((entrant) => [
        entrant.name,
        { skip: entrant.skip, repetitions: entrant.repetitions },
      ]),
    );

  it('runs every system, graphile-worker also with its local queue, on a fan-out within the limits', () => {
    expect(limited(10_000)).toEqual({
      [THIS]: { skip: undefined, repetitions: undefined },
      'DBOS Transact': { skip: undefined, repetitions: undefined },
      'graphile-worker': { skip: undefined, repetitions: undefined },
      'graphile-worker (local queue)': { skip: undefined, repetitions: undefined },
      'pg-boss': { skip: undefined, repetitions: undefined },
    });
  });

  it('leaves out the slow peers past the limits, with a reason, and runs pg-boss once', () => {
    const entrants = limited(100_000);
    expect(entrants['DBOS Transact']!.skip).toMatch(/steps\/s/);
    expect(entrants['graphile-worker']!.skip).toMatch(/local-queue run stands for it/);
    expect(entrants['pg-boss']).toEqual({ skip: undefined, repetitions: 1 });
    expect(entrants[THIS]).toEqual({ skip: undefined, repetitions: undefined });
    expect(entrants['graphile-worker (local queue)']).toEqual({ skip: undefined, repetitions: undefined });
  });
});
