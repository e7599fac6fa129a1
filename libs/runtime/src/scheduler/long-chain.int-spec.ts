import { EventType, TERMINAL_EXECUTION_EVENTS } from '@noetl/event-kernel';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { waitFor } from '../../../../test/support/wait-for';

const STEPS = 5000;
const WINDOW = 1000;

// 5,000 steps of about 20 ms each on two busy cores.
jest.setTimeout(15 * 60_000);

/** `noop` steps s0 -> s1 -> ... -> s{n-1}: every step a command issued, claimed, run and completed. */
function chain(steps: number): string {
  const workflow = Array.from(
    { length: steps },
    (_, i) => `  - step: s${i}\n    tool: {kind: noop}\n${i + 1 < steps ? `    next: [{step: s${i + 1}}]\n` : ''}`,
  );
  return `apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: {name: long_chain, path: tests/long_chain}\nworkflow:\n${workflow.join('')}`;
}

/**
 * Issue 15 defect 9: a long chain slowed down as it went (16 steps/s in its
 * first minute, 3 at ten minutes) because each step copied or re-read what
 * the execution had done so far (the planner's copy of the state, the
 * scope of every claim, the projection row). The roles of `noetl server`
 * run here (scheduler, worker and projector) with its default sweep; the
 * step times come from the ledger, in one run.
 */
describe('a 5,000-step chain', () => {
  let t: TestEngine;

  beforeAll(async () => {
    t = await startTestEngine({ roles: ['scheduler', 'worker', 'projector'], env: { NOETL_SWEEP_MS: '1000' } });
    await t.engine.own.catalog.register(chain(STEPS));
  });
  afterAll(async () => t?.close());

  it('runs its last 1,000 steps no more than 1.5 times slower than its first 1,000', async () => {
    const { execution_id: id } = await t.engine.own.executions.start({ path: 'tests/long_chain' });
    // The terminal event, looked up by type: reading the whole execution every poll would itself cost what it has done.
    const [terminal] = await waitFor(
      async () => {
        const { events } = await t.engine.own.executions.events(id, { type: [...TERMINAL_EXECUTION_EVENTS] });
        return events.length > 0 && events;
      },
      { timeoutMs: 14 * 60_000, intervalMs: 1000, description: `the ${STEPS}-step chain to end` },
    );
    expect(terminal?.event_type).toBe(EventType.ExecutionCompleted);

    const exits: number[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await t.engine.own.executions.events(id, { type: [EventType.StepExit], limit: 1000, ...(after ? { after } : {}) });
      exits.push(...page.events.map((event) => Date.parse(event.created_at)));
      if (page.events.length < 1000 || !page.next_after) break;
      after = page.next_after;
    }
    expect(exits).toHaveLength(STEPS);
    // Medians of the steps' durations (exit to exit): a burst of other work on the machine moves a window's mean, not its median.
    const first = medianStep(exits.slice(0, WINDOW));
    const last = medianStep(exits.slice(STEPS - WINDOW));
    const ratio = last / first;
    // Printed for the record: what a run measured (median ms per step at the start and the end).
    process.stdout.write(
      `long chain: first ${WINDOW} steps ${first.toFixed(1)} ms/step, last ${WINDOW} ${last.toFixed(1)} ms/step (medians), ratio ${ratio.toFixed(2)}\n`,
    );
    expect(ratio).toBeLessThanOrEqual(1.5);
  });
});

/** The median time from one step's exit to the next's, in ms. */
function medianStep(exits: readonly number[]): number {
  const steps = exits
    .slice(1)
    .map((at, i) => at - exits[i]!)
    .sort((a, b) => a - b);
  return steps[Math.floor(steps.length / 2)]!;
}
