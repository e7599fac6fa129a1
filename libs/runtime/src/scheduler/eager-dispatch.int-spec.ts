import { EventType } from '@noetl/event-kernel';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';

// Each test starts an engine and runs a few executions: past jest's 5 s when the machine is busy.
jest.setTimeout(30_000);

const CHAIN = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: eager_chain, path: tests/eager_chain}
workflow:
  - step: s0
    tool: {kind: noop}
    next: [{step: s1}]
  - step: s1
    tool: {kind: noop}
    next: [{step: s2}]
  - step: s2
    tool: {kind: noop}
`;

// Two branches at once on a worker of one slot: the slow one takes the slot as it is issued, the other waits for an offer.
const FORK = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: eager_fork, path: tests/eager_fork}
workflow:
  - step: start
    tool: {kind: noop}
    next:
      spec: {mode: inclusive}
      arcs: [{step: slow}, {step: quick}]
  - step: slow
    tool:
      - {name: nap, kind: sleep, seconds: 0.5}
      - {name: done, kind: noop}
  - step: quick
    tool: {kind: noop}
`;

interface Written {
  event_type: string;
  node_name: string;
  worker_id: string | null;
  /** The inserting transaction. */
  xid: string;
}

/**
 * Eager dispatch (issue 12): with the scheduler and a worker in one process,
 * a command is claimed for the worker in the transaction that issues it, and
 * a report is planned in the report's own transaction, so a step costs one
 * transaction. Read from the rows' inserting transactions (xmin).
 */
describe('eager dispatch', () => {
  let t: TestEngine;

  const written = async (executionId: string): Promise<Written[]> =>
    t.database.query<Written>(
      `SELECT event_type, node_name, payload->>'worker_id' AS worker_id, xmin::text AS xid FROM noetl.event WHERE execution_id = $1::bigint ORDER BY stream_version`,
      [executionId],
    );
  const of = (events: Written[], type: string, step: string): Written =>
    events.find((event) => event.event_type === type && event.node_name === step)!;

  afterEach(async () => t?.close());

  it("claims each command for the process's worker as it is issued, and commits a report with the next step's decisions", async () => {
    t = await startTestEngine();
    await t.engine.own.catalog.register(CHAIN);
    const { execution_id: id } = await t.engine.own.executions.start({ path: 'tests/eager_chain' });
    expect((await t.engine.waitForTerminal(id, { timeoutMs: 30_000 })).status).toBe('COMPLETED');
    const events = await written(id);

    for (const step of ['s0', 's1', 's2']) {
      const claimed = of(events, EventType.CommandClaimed, step);
      expect(claimed.worker_id).toBe(t.engine.worker!.workerId);
      expect(claimed.xid).toBe(of(events, EventType.CommandIssued, step).xid);
    }
    for (const [step, next] of [
      ['s0', 's1'],
      ['s1', 's2'],
    ] as const) {
      expect(of(events, EventType.CommandCompleted, step).xid).toBe(of(events, EventType.CommandIssued, next).xid);
    }
    expect(of(events, EventType.CommandCompleted, 's2').xid).toBe(
      events.find((event) => event.event_type === EventType.ExecutionCompleted)!.xid,
    );
    expect(events.filter((event) => event.event_type === EventType.CommandStarted)).toEqual([]);
  });

  it('goes on with a started execution before it takes the next one waiting: a report hands its slot to the command it leads to', async () => {
    t = await startTestEngine({ env: { NOETL_WORKER_CONCURRENCY: '1' } });
    await t.engine.own.catalog.register(CHAIN);
    const ids = (await Promise.all(Array.from({ length: 4 }, () => t.engine.own.executions.start({ path: 'tests/eager_chain' })))).map(
      (started) => started.execution_id,
    );
    for (const id of ids) expect((await t.engine.waitForTerminal(id, { timeoutMs: 30_000 })).status).toBe('COMPLETED');

    for (const id of ids) {
      const events = await written(id);
      // With four executions waiting for one slot, each one's s1 and s2 still start in the transaction of the report before them.
      for (const [step, next] of [
        ['s0', 's1'],
        ['s1', 's2'],
      ] as const) {
        expect(of(events, EventType.CommandClaimed, next).xid).toBe(of(events, EventType.CommandCompleted, step).xid);
      }
    }
  });

  it('offers a command no free slot takes, and the worker claims it once a slot is free', async () => {
    t = await startTestEngine({ env: { NOETL_WORKER_CONCURRENCY: '1' } });
    await t.engine.own.catalog.register(FORK);
    const { execution_id: id } = await t.engine.own.executions.start({ path: 'tests/eager_fork' });
    expect((await t.engine.waitForTerminal(id, { timeoutMs: 30_000 })).status).toBe('COMPLETED');
    const events = await written(id);

    const claimedAsIssued = (step: string): boolean =>
      of(events, EventType.CommandClaimed, step).xid === of(events, EventType.CommandIssued, step).xid;
    expect([claimedAsIssued('slow'), claimedAsIssued('quick')].sort()).toEqual([false, true]);
    expect(events.filter((event) => event.event_type === EventType.CommandClaimed).map((event) => event.worker_id)).toEqual([
      t.engine.worker!.workerId,
      t.engine.worker!.workerId,
      t.engine.worker!.workerId,
    ]);
  });
});
