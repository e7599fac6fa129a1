import { buildEvent, EventType, SnowflakeIds } from '@noetl/event-kernel';
import { Engine, InProcessBus } from '@noetl/runtime';
import { PgEventStore } from '@noetl/storage';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { waitFor } from '../../../../test/support/wait-for';

const CHAIN = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: chain, path: tests/chain}
workload: {n: 2}
workflow:
  - step: start
    tool: {kind: noop}
    next: [{step: double}]
  - step: double
    tool: {kind: javascript, code: "return {value: input.n * 2}", input: {n: "{{ n }}"}}
    next: [{step: nap}]
  - step: nap
    tool: {kind: sleep, seconds: 0.3}
    next: [{step: end}]
  - step: end
    tool: {kind: javascript, code: "return {final: input.v}", input: {v: "{{ double.data.value }}"}}
`;

describe('Scheduler', () => {
  let t: TestEngine;

  beforeAll(async () => {
    t = await startTestEngine();
    await t.engine.own.catalog.register(CHAIN);
  });
  afterAll(async () => t?.close());

  it('runs many executions at once, each to exactly one terminal event', async () => {
    const started = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.engine.own.executions.start({ path: 'tests/chain', payload: { n: i } })),
    );
    const details = await Promise.all(started.map(({ execution_id }) => t.engine.waitForTerminal(execution_id, { timeoutMs: 30_000 })));
    expect(details.map((detail) => detail.status)).toEqual(details.map(() => 'COMPLETED'));
    expect(details.map((detail) => detail.result)).toEqual(started.map((_, i) => ({ final: i * 2 })));
    for (const { execution_id } of started) {
      const terminal = await t.engine.own.executions.events(execution_id, {
        type: [EventType.ExecutionCompleted, EventType.ExecutionFailed, EventType.ExecutionCancelled],
      });
      expect(terminal.events).toHaveLength(1);
    }
  });

  it('sleeps on a durable timer fired once, however many sweeps race for it', async () => {
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/chain' });
    await waitFor(
      async () => (await t.engine.own.executions.events(execution_id, { type: [EventType.TimerScheduled] })).events.length === 1,
    );
    await Promise.all([t.engine.sweep(), t.engine.sweep(), t.engine.sweep()]);
    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 10_000 });
    expect(detail.status).toBe('COMPLETED');
    const fired = await t.engine.own.executions.events(execution_id, { type: [EventType.TimerFired] });
    expect(fired.events).toHaveLength(1);
    const napCommands = await t.engine.own.executions.events(execution_id, { type: [EventType.CommandIssued] });
    expect(napCommands.events.map((event) => event.step)).not.toContain('nap');
  });

  it('resumes an execution a stopped engine left mid-way', async () => {
    const other = await Engine.start({ config: t.config, database: t.database, roles: ['scheduler'] });
    const { execution_id } = await other.own.executions.start({ path: 'tests/chain', payload: { n: 21 } });
    // Without a worker the execution waits on its first command; stop that engine there.
    await waitFor(async () => (await other.own.executions.events(execution_id, { type: [EventType.CommandIssued] })).events.length === 1);
    await other.stop();
    // The suite's engine (scheduler + worker) picks it up through its sweep: the command is offered again.
    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 30_000 });
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { final: 42 } });
  }, 20_000);
});

/** A scheduler alone (no worker, no periodic sweep): the spec decides when it plans. */
describe('Scheduler, planning events that arrived together', () => {
  let p: TestEngine;

  beforeAll(async () => {
    p = await startTestEngine({ roles: ['scheduler'], env: { NOETL_SWEEP_MS: '600000' } });
  });
  afterAll(async () => p?.close());

  it('joins a fan-in whose branches both ended before the scheduler planned either', async () => {
    await p.engine.own.catalog.register(`
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: fanin, path: tests/fan-in-race}
workflow:
  - step: start
    tool: {kind: noop}
    next: {spec: {mode: inclusive}, arcs: [{step: a}, {step: b}]}
  - step: a
    tool: {kind: noop}
    next: [{step: join}]
  - step: b
    tool: {kind: noop}
    next: [{step: join}]
  - step: join
    tool: {kind: noop}
`);
    const planner = p.engine;
    // A second engine, on a bus of its own, reports for the branches without telling the scheduler.
    const reporter = await Engine.start({ config: p.config, database: p.database, roles: [], bus: new InProcessBus() });
    try {
      const { execution_id } = await planner.own.executions.start({ path: 'tests/fan-in-race' });
      const claimAll = async (count: number): Promise<string[]> =>
        waitFor(async () => {
          const issued = (await planner.own.executions.events(execution_id, { type: [EventType.CommandIssued] })).events;
          return issued.length === count ? issued.map((event) => event.command_id!) : undefined;
        });
      const [first] = await claimAll(1);
      const { lease_token } = await reporter.own.controlPlane.claim(first!, { worker_id: 'w' });
      await planner.own.controlPlane.complete(first!, { worker_id: 'w', lease_token });
      const branches = (await claimAll(3)).slice(1);
      for (const id of branches) {
        const lease = await reporter.own.controlPlane.claim(id, { worker_id: 'w' });
        await reporter.own.controlPlane.complete(id, { worker_id: 'w', lease_token: lease.lease_token });
      }
      await planner.sweep();
      const enters = await waitFor(async () => {
        const events = (await planner.own.executions.events(execution_id, { type: [EventType.StepEnter] })).events;
        return events.some((event) => event.step === 'join') ? events : undefined;
      });
      expect(enters.filter((event) => event.step === 'join')).toHaveLength(1);
    } finally {
      await reporter.stop();
    }
  });

  it('plans again checked when a decision it deferred finds its key taken, instead of failing at every sweep', async () => {
    await p.engine.own.catalog.register(`
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: taken, path: tests/taken-key}
workflow:
  - step: start
    tool: {kind: noop}
    next: [{step: after}]
  - step: after
    tool: {kind: noop}
`);
    const planner = p.engine;
    const reporter = await Engine.start({ config: p.config, database: p.database, roles: [], bus: new InProcessBus() });
    try {
      const { execution_id } = await planner.own.executions.start({ path: 'tests/taken-key' });
      const issued = async (): Promise<string[]> =>
        (await planner.own.executions.events(execution_id, { type: [EventType.CommandIssued] })).events.map((event) => event.step!);
      const first = await waitFor(
        async () => (await planner.own.executions.events(execution_id, { type: [EventType.CommandIssued] })).events[0],
      );
      const { lease_token } = await reporter.own.controlPlane.claim(first.command_id!, { worker_id: 'w' });
      await reporter.own.controlPlane.complete(first.command_id!, { worker_id: 'w', lease_token });
      const [completed] = (await planner.own.executions.events(execution_id, { type: [EventType.CommandCompleted] })).events;
      // Another stream takes the key of the planner's first decision on that report (PlanContext: plan:<trigger>:<n>).
      const scope = p.config.tenancy;
      await new PgEventStore(p.database).append([
        buildEvent(
          {
            type: EventType.CtxUpdated,
            executionId: execution_id,
            aggregate: { type: 'timer', id: execution_id },
            payload: { set: {} },
            idempotencyKey: `plan:${completed!.event_id}:0`,
          },
          { ids: new SnowflakeIds(13, () => Date.now()), now: () => new Date(), producer: 'scheduler.int-spec', ...scope },
        ),
      ]);

      await planner.sweep();
      expect(await waitFor(async () => ((await issued()).includes('after') ? issued() : undefined))).toEqual(['start', 'after']);
    } finally {
      await reporter.stop();
    }
  });
});
