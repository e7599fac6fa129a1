import { EventType } from '@noetl/event-kernel';
import { PlannerHarness, workflow } from './testing/planner-harness';

const STREAMING = workflow(`
  - step: read
    tool: { kind: postgres, auth: pg, query: "SELECT n FROM t ORDER BY n", stream: { chunk_rows: 2 } }
    next:
      - step: each_chunk
        on: call.partial
        when: "{{ chunk.row_count > 1 or not chunk.has_more }}"
        set: { ctx.last_chunk: "{{ chunk.index }}" }
      - step: after
  - step: each_chunk
    tool: { kind: javascript, code: "return input.rows.length", input: { rows: "{{ chunk.rows }}" } }
    set: { ctx.seen: "{{ chunk.index }}" }
  - step: after
    tool: { kind: noop }
`);

describe('call.partial: a streaming step routes each chunk (DSL.md s3 stream)', () => {
  it('starts the on: call.partial target once per chunk, in order, with the chunk origin; call.done still gates the other arcs', () => {
    const h = new PlannerHarness(STREAMING).start();
    h.partial('read', 0, [{ n: 1 }, { n: 2 }], true);
    h.partial('read', 1, [{ n: 3 }, { n: 4 }], true);
    h.partial('read', 2, [{ n: 5 }], false);

    const entered = h.ofType(EventType.StepEnter).filter((e) => e.payload.step === 'each_chunk');
    expect(entered.map((e) => e.payload.chunk?.chunk_index)).toEqual([0, 1, 2]);
    const read = h.ofType(EventType.CommandIssued).find((e) => e.payload.step === 'read')!;
    expect(entered[2]?.payload.chunk).toEqual({
      step: 'read',
      run_id: read.payload.run_id,
      command_id: read.payload.command_id,
      chunk_index: 2,
      has_more: false,
      row_count: 1,
      rows_ref: expect.objectContaining({ sha256: expect.any(String) }),
    });
    expect(h.state.ctx['last_chunk']).toBe(2);
    expect(h.trace()).not.toContain('enter after');
    expect(h.trace()).not.toContain('exit read');

    h.complete('read', { row_count: 5, chunk_count: 3, rows: [] });
    expect(h.trace().filter((line) => line.endsWith('after'))).toEqual(['enter after']);
  });

  it("gives each chunk's run its chunk (without rows) in its own set, and completes the execution once every run ended", () => {
    const h = new PlannerHarness(STREAMING).start();
    h.partial('read', 0, [{ n: 1 }], false);
    h.complete('read', { row_count: 1 });
    h.complete('after');
    expect(h.state.status).toBe('RUNNING');
    h.complete('each_chunk', 1);
    expect(h.state.ctx['seen']).toBe(0);
    expect(h.state.status).toBe('COMPLETED');
  });

  it('evaluates the arc per chunk without loading its rows (the scheduler never reads a chunk): a chunk its when rejects starts nothing', () => {
    const h = new PlannerHarness(STREAMING).start();
    const command = h.command('read');
    const unloaded = { sha256: 'f'.repeat(64), media_type: 'application/json', bytes: 10 };
    for (const [index, rowCount, hasMore] of [
      [0, 1, true],
      [1, 1, false],
    ] as const) {
      h.append({
        type: EventType.CallPartial,
        executionId: h.executionId,
        commandId: command.commandId,
        step: 'read',
        payload: { task: 'read', chunk_index: index, has_more: hasMore, row_count: rowCount, columns: ['n'], rows_ref: unloaded },
      });
    }
    expect(h.state.status).toBe('RUNNING');
    expect(
      h
        .ofType(EventType.StepEnter)
        .filter((e) => e.payload.step === 'each_chunk')
        .map((e) => e.payload.chunk?.chunk_index),
    ).toEqual([1]);
  });

  it('routes a chunk once when a retried command streams it again, and the new chunks after it', () => {
    const playbook = workflow(`
  - step: read
    tool: { kind: postgres, auth: pg, query: "SELECT 1", stream: { chunk_rows: 1 } }
    retry:
      - when: "{{ error.retryable }}"
        then: { max_attempts: 2, initial_delay: 1 }
    next:
      - { step: each_chunk, on: call.partial }
  - step: each_chunk
    tool: { kind: noop }
`);
    const h = new PlannerHarness(playbook).start();
    h.partial('read', 0, [1], true);
    h.partial('read', 1, [2], true);
    h.fail('read', { kind: 'connection', message: 'server closed the connection', retryable: true });
    h.fireTimers();
    h.partial('read', 0, [1], true);
    h.partial('read', 1, [2], true);
    h.partial('read', 2, [3], false);
    const chunks = h
      .ofType(EventType.StepEnter)
      .filter((e) => e.payload.step === 'each_chunk')
      .map((e) => e.payload.chunk?.chunk_index);
    expect(chunks).toEqual([0, 1, 2]);
  });

  it('fails the streaming step with the expression when an arc template on a chunk fails', () => {
    const playbook = workflow(`
  - step: read
    tool: { kind: postgres, auth: pg, query: "SELECT 1", stream: { chunk_rows: 1 } }
    next:
      - { step: each_chunk, on: call.partial, when: "{{ chunk.index + missing_name > 1 }}" }
  - step: each_chunk
    tool: { kind: noop }
`);
    const h = new PlannerHarness(playbook).start();
    h.partial('read', 0, [1], false);
    expect(h.state.status).toBe('FAILED');
    expect(h.state.error).toMatchObject({ step: 'read', kind: 'template' });
    expect(h.ofType(EventType.CommandCancelled)).toHaveLength(1);
  });
});
