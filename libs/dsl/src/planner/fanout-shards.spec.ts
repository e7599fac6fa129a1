import { EventType, type EventError } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

const boom: EventError = { kind: 'code', message: 'Error: shard failed' };

/** A fan-out of `items` (each doubled by the body) that routes on `fanin.status`. */
function fanout(items: number, spec = ''): PlannerHarness {
  return new PlannerHarness(
    workflow(
      `
  - step: shards
    loop: { in: "{{ items }}", iterator: n, spec: { loop_mode: fanout${spec} } }
    tool: { kind: javascript, code: "return n * 2" }
    next:
      - step: all_done
        when: "{{ fanin.status == 'complete' }}"
        set: { ctx.summary: "{{ fanin }}" }
      - step: some_failed
        when: "{{ fanin.status == 'partial' }}"
        set: { ctx.summary: "{{ fanin }}" }
  - step: all_done
    tool: { kind: noop }
  - step: some_failed
    tool: { kind: noop }
`,
      `workload: { items: [${Array.from({ length: items }, (_, i) => i).join(', ')}] }`,
    ),
  ).start();
}

describe('fan-out shards as independent commands (DSL.md s4.2)', () => {
  it('issues one command per item at once, each naming its loop and item index, with 1 + max_shard_retries runs', () => {
    const h = fanout(5);
    const loop = h.loop('shards');
    const issued = h.ofType(EventType.CommandIssued);
    expect(issued.map((e) => e.payload.iteration)).toEqual([0, 1, 2, 3, 4]);
    for (const event of issued) {
      expect(event.payload).toMatchObject({ step: 'shards', loop_id: loop.loopId, attempt: 1, max_attempts: 3, kind: 'javascript' });
      expect(event.payload.spec).toMatchObject({ iterator: 'n', tool: { tasks: [{ kind: 'javascript' }] } });
      expect(event.loop_id).toBe(loop.loopId);
    }
    expect(new Set(issued.map((e) => e.payload.command_id)).size).toBe(5);
    expect(h.ofType(EventType.StageOpened)[0]?.payload).toMatchObject({ kind: 'fanout', frame_count: 0 });
    expect(loop.shards).toEqual(
      Object.fromEntries(issued.map((e) => [e.payload.iteration, { commandId: e.payload.command_id, status: 'RUNNING' }])),
    );
  });

  it('keeps at most max_in_flight shards issued and not ended: each end, but a retry, issues the next item', () => {
    const h = fanout(5, ', max_in_flight: 2, fanout: { max_shard_retries: 1 }');
    const open = () =>
      Object.values(h.loop('shards').shards ?? {}).filter((shard) => shard.status === 'RUNNING' || shard.status === 'RETRYING').length;
    const issuedItems = () =>
      h
        .ofType(EventType.CommandIssued)
        .filter((e) => e.payload.step === 'shards')
        .map((e) => e.payload.iteration);
    expect(h.ofType(EventType.LoopStarted)[0]?.payload.max_in_flight).toBe(2);
    expect(issuedItems()).toEqual([0, 1]);
    h.endShard('shards', 0, 0);
    expect(issuedItems()).toEqual([0, 1, 2]);
    // A failed run with a retry left takes the same place again.
    h.endShard('shards', 1, { error: boom });
    expect(issuedItems()).toEqual([0, 1, 2, 1]);
    expect(open()).toBe(2);
    for (const index of [1, 2, 3]) {
      h.endShard('shards', index, index * 2);
      expect(open()).toBeLessThanOrEqual(2);
    }
    h.endShard('shards', 4, 8);
    expect(issuedItems()).toEqual([0, 1, 2, 1, 3, 4]);
    expect(h.ofType(EventType.LoopDone)[0]?.payload).toMatchObject({ status: 'complete', total: 5, results: [0, 2, 4, 6, 8] });
  });

  it('issues every item at once when the playbook sets no max_in_flight', () => {
    const h = fanout(7);
    expect(h.ofType(EventType.LoopStarted)[0]?.payload.max_in_flight).toBe(7);
    expect(h.ofType(EventType.CommandIssued)).toHaveLength(7);
  });

  it('completes 100 shards when 2 fail twice and then succeed: re-issued as new commands, fan-in fires once, complete', () => {
    const h = fanout(100);
    const flaky = new Set([17, 63]);
    for (let index = 0; index < 100; index += 1) if (!flaky.has(index)) h.endShard('shards', index, index * 2);
    for (const index of flaky) {
      h.endShard('shards', index, { error: boom });
      expect(h.shard('shards', index)).toMatchObject({ attempt: 2, maxAttempts: 3 });
      h.endShard('shards', index, { error: boom });
      expect(h.shard('shards', index)).toMatchObject({ attempt: 3 });
    }
    expect(h.ofType(EventType.LoopDone)).toHaveLength(0);
    h.endShard('shards', 17, 34);
    expect(h.ofType(EventType.LoopDone)).toHaveLength(0);
    h.endShard('shards', 63, 126);

    const done = h.ofType(EventType.LoopDone);
    expect(done).toHaveLength(1);
    expect(done[0]?.payload).toMatchObject({ status: 'complete', total: 100, succeeded: 100, failed: 0 });
    expect(done[0]?.payload.results).toEqual(Array.from({ length: 100 }, (_, i) => i * 2));
    const retried = h.ofType(EventType.CommandIssued).filter((e) => e.payload.attempt > 1);
    expect(retried.map((e) => [e.payload.iteration, e.payload.attempt])).toEqual([
      [17, 2],
      [17, 3],
      [63, 2],
      [63, 3],
    ]);
    expect(h.ofType(EventType.CommandIssued).filter((e) => e.payload.step === 'shards')).toHaveLength(104);
    expect(h.ofType(EventType.StageClosed)).toHaveLength(1);
    expect(h.trace()).toEqual(['enter shards', 'exit shards', 'enter all_done']);
    expect(h.state.ctx['summary']).toEqual({ status: 'complete', done: 100, failed: 0, total: 100 });
  });

  it('gives a partial fan-in when 2 shards fail on every run, with the counts, and routes on it', () => {
    const h = fanout(10);
    for (let index = 0; index < 10; index += 1) if (index !== 3 && index !== 8) h.endShard('shards', index, index * 2);
    for (let run = 1; run <= 3; run += 1) {
      h.endShard('shards', 3, { error: { ...boom, message: `run ${run} of 3` } });
      h.endShard('shards', 8, { error: boom });
    }
    expect(h.openCommands().filter((c) => c.step === 'shards')).toEqual([]);
    const done = h.ofType(EventType.LoopDone);
    expect(done).toHaveLength(1);
    expect(done[0]?.payload).toMatchObject({ status: 'partial', total: 10, succeeded: 8, failed: 2 });
    expect(done[0]?.payload.results?.[3]).toBeNull();
    expect(h.state.ctx['summary']).toEqual({ status: 'partial', done: 10, failed: 2, total: 10 });
    expect(h.trace()).toEqual(['enter shards', 'exit shards', 'enter some_failed']);
    expect(Object.values(h.state.loops)[0]?.shards?.[3]).toMatchObject({ status: 'FAILED', error: { message: 'run 3 of 3' } });
  });

  it('counts a lease that ran out as a failed run of the shard', () => {
    const h = fanout(2, ', fanout: { max_shard_retries: 1 }');
    h.endShard('shards', 0, 0);
    h.endShard('shards', 1, 'abandon');
    expect(h.shard('shards', 1)).toMatchObject({ attempt: 2, maxAttempts: 2 });
    h.endShard('shards', 1, 'abandon');
    expect(h.ofType(EventType.LoopDone)[0]?.payload).toMatchObject({ status: 'partial', failed: 1 });
    expect(Object.values(h.state.loops)[0]?.shards?.[1]?.error).toMatchObject({
      kind: 'internal',
      message: expect.stringContaining('lease expired'),
    });
  });

  it('fails a shard for good on its first failure with max_shard_retries: 0, and fails the step when no arc handles it', () => {
    const h = new PlannerHarness(
      workflow(`
  - step: shards
    loop: { in: [1, 2], iterator: n, spec: { loop_mode: fanout, fanout: { max_shard_retries: 0 } } }
    tool: { kind: javascript, code: "return n" }
`),
    ).start();
    h.endShard('shards', 0, 1);
    h.endShard('shards', 1, { error: boom });
    expect(h.ofType(EventType.CommandIssued)).toHaveLength(2);
    expect(h.state.status).toBe('FAILED');
    expect(h.state.error?.message).toContain('1 of 2 iterations of loop step shards failed');
  });

  it("records a shard's ctx writes and keeps planning nothing for a quiet shard end", () => {
    const h = fanout(3);
    const quiet = h.endShard('shards', 0, 0);
    expect(h.batches.get(quiet.event_id)).toEqual([]);
    h.endShard('shards', 1, 2, { ctx: { last: 1 } });
    expect(h.ofType(EventType.CtxUpdated)[0]?.payload).toEqual({ set: { last: 1 }, step: 'shards' });
    h.endShard('shards', 2, 4);
    expect(h.ofType(EventType.LoopDone)[0]?.payload.results).toEqual([0, 2, 4]);
  });

  it('reads a shard result stored by reference when the loop closes', () => {
    const h = fanout(2);
    h.endShard('shards', 0, 0);
    const command = h.shard('shards', 1);
    h.append({
      type: EventType.CommandCompleted,
      executionId: h.executionId,
      commandId: command.commandId,
      step: 'shards',
      payload: { result_ref: h.ref({ big: 'x'.repeat(10) }) },
    });
    expect(h.ofType(EventType.LoopDone)[0]?.payload.results).toEqual([0, { big: 'x'.repeat(10) }]);
  });

  it('cancels the open shard commands when the execution is cancelled', () => {
    const h = fanout(3);
    h.endShard('shards', 0, 0);
    h.cancel();
    expect(
      h
        .ofType(EventType.CommandCancelled)
        .map((e) => e.command_id)
        .sort(),
    ).toEqual(
      h
        .ofType(EventType.CommandIssued)
        .filter((e) => e.payload.iteration !== 0)
        .map((e) => e.payload.command_id)
        .sort(),
    );
    expect(h.ofType(EventType.LoopDone)).toHaveLength(0);
  });

  it('closes an empty fan-out at once', () => {
    const h = fanout(0);
    expect(h.ofType(EventType.CommandIssued).map((e) => e.payload.step)).toEqual(['all_done']);
    expect(h.ofType(EventType.LoopDone)[0]?.payload).toMatchObject({ status: 'complete', total: 0 });
  });
});
