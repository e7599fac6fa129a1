import { EventType } from '@noetl/event-kernel';
import { Engine } from '../engine';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { commandsWithRepeated, ofType } from '../../../../test/support/ledger-checks';
import { startScriptedHttpServer, type ScriptedHttpServer } from '../../../../test/support/scripted-http-server';

/**
 * A fan-out over `items`: each shard calls the scripted server, which fails
 * the first `times` calls of an item listed in `flaky` (503) and then answers.
 */
const FANOUT = (path: string) => `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: fanout, path: ${path}}
workload: {items: [], flaky: [], times: 0, run: x, url: ""}
workflow:
  - step: shards
    loop:
      in: "{{ workload.items }}"
      iterator: n
      spec: {loop_mode: fanout}
    tool:
      kind: http
      url: "{{ workload.url }}/fail-first/{{ workload.run }}-{{ n }}"
      params: {times: "{{ workload.times if n in workload.flaky else 0 }}"}
    next:
      - step: complete
        when: "{{ fanin.status == 'complete' }}"
        set: {ctx.fanin: "{{ fanin }}"}
      - step: partial
        when: "{{ fanin.status == 'partial' }}"
        set: {ctx.fanin: "{{ fanin }}"}
  - step: complete
    tool: {kind: javascript, code: "return {fanin: input.f, keys: input.r.map(function (r) { return r.data.key; })}", input: {f: "{{ ctx.fanin }}", r: "{{ shards.results }}"}}
  - step: partial
    tool: {kind: javascript, code: "return {fanin: input.f, stats: input.s}", input: {f: "{{ ctx.fanin }}", s: "{{ shards.stats }}"}}
`;

jest.setTimeout(120_000);

describe('fan-out shards as independent commands (DSL.md s4.2)', () => {
  let t: TestEngine;
  let second: Engine;
  let server: ScriptedHttpServer;

  beforeAll(async () => {
    server = await startScriptedHttpServer();
    t = await startTestEngine({ env: { NOETL_WORKER_CONCURRENCY: '8' } });
    // A second worker on the same ledger and bus: any worker may claim any shard.
    second = await Engine.start({
      config: t.config,
      database: t.database,
      roles: ['worker'],
      bus: t.engine.bus,
      workerId: 'second-worker',
    });
    await t.engine.own.catalog.register(FANOUT('tests/fanout'));
  });

  afterAll(async () => {
    await second?.stop();
    await t?.close();
    await server?.close();
  });

  async function run(workload: Record<string, unknown>) {
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/fanout', payload: { url: server.url, ...workload } });
    const detail = await t.engine.waitForTerminal(execution_id, { timeoutMs: 90_000 });
    const { events } = await t.engine.own.executions.events(execution_id, { limit: 10_000 });
    return { detail, events };
  }

  it('completes 100 shards when 2 fail twice and then succeed: each failure re-issued as a new command, one fan-in', async () => {
    const items = Array.from({ length: 100 }, (_, i) => i);
    const { detail, events } = await run({ items, flaky: [7, 58], times: 2, run: 'complete' });

    expect(detail.status).toBe('COMPLETED');
    expect(detail.result).toEqual({
      fanin: { status: 'complete', done: 100, failed: 0, total: 100 },
      keys: items.map((i) => `complete-${i}`),
    });
    const shardCommands = ofType(events, EventType.CommandIssued).filter((e) => e.step === 'shards');
    expect(shardCommands).toHaveLength(104);
    const runsOf = (item: number) =>
      shardCommands
        .filter((e) => (e.payload as { iteration: number }).iteration === item)
        .map((e) => (e.payload as { attempt: number }).attempt);
    expect(runsOf(7)).toEqual([1, 2, 3]);
    expect(runsOf(58)).toEqual([1, 2, 3]);
    expect(runsOf(0)).toEqual([1]);
    for (const item of items) expect(server.calls(`complete-${item}`)).toBe(item === 7 || item === 58 ? 3 : 1);
    expect(ofType(events, EventType.CommandFailed)).toHaveLength(4);
    // Exactly once: one command.issued per command id, one loop.done per loop, one terminal report per command.
    expect(new Set(shardCommands.map((e) => e.command_id)).size).toBe(104);
    expect(ofType(events, EventType.LoopDone)).toHaveLength(1);
    expect(ofType(events, EventType.LoopDone)[0]?.payload).toMatchObject({ status: 'complete', total: 100, succeeded: 100, failed: 0 });
    expect(commandsWithRepeated(events, EventType.CommandCompleted)).toEqual([]);
    expect(ofType(events, EventType.FrameDispatched)).toEqual([]);
    expect(detail.loops).toEqual([expect.objectContaining({ step: 'shards', total: 100, done: 100, failed: 0, completed: true })]);
    const workers = new Set(ofType(events, EventType.CommandClaimed).map((e) => (e.payload as { worker_id: string }).worker_id));
    expect(workers).toContain('second-worker');
    expect(workers.size).toBe(2);
  });

  it('never has more shards issued and not ended than max_in_flight, under a slow endpoint, over two workers', async () => {
    await t.engine.own.catalog.register(`
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: fanout_bounded, path: tests/fanout-bounded}
workload: {url: ""}
workflow:
  - step: shards
    loop: {in: [0, 1, 2, 3, 4, 5, 6, 7], iterator: n, spec: {loop_mode: fanout, max_in_flight: 3}}
    tool: {kind: http, url: "{{ workload.url }}/slow", params: {ms: 150}}
`);
    const { execution_id } = await t.engine.own.executions.start({ path: 'tests/fanout-bounded', payload: { url: server.url } });
    expect((await t.engine.waitForTerminal(execution_id, { timeoutMs: 60_000 })).status).toBe('COMPLETED');
    const { events } = await t.engine.own.executions.events(execution_id, { limit: 10_000 });
    // In ledger order: a shard command is open from its command.issued to its terminal event.
    const open = new Set<string>();
    let most = 0;
    for (const event of events) {
      if (event.step !== 'shards' || event.command_id === null) continue;
      if (event.event_type === EventType.CommandIssued) open.add(event.command_id);
      if (event.event_type === EventType.CommandCompleted || event.event_type === EventType.CommandFailed) open.delete(event.command_id);
      most = Math.max(most, open.size);
    }
    expect(most).toBe(3);
    expect(ofType(events, EventType.CommandIssued).filter((e) => e.step === 'shards')).toHaveLength(8);
  });

  it('gives fanin.status partial with the counts when 2 of 10 shards fail on every run (1 + max_shard_retries each)', async () => {
    const { detail, events } = await run({ items: Array.from({ length: 10 }, (_, i) => i), flaky: [2, 9], times: 100, run: 'partial' });

    expect(detail.status).toBe('COMPLETED');
    expect(detail.result).toEqual({
      fanin: { status: 'partial', done: 10, failed: 2, total: 10 },
      stats: { total: 10, succeeded: 8, success: 8, failed: 2 },
    });
    expect(server.calls('partial-2')).toBe(3);
    expect(server.calls('partial-9')).toBe(3);
    expect(server.calls('partial-0')).toBe(1);
    expect(ofType(events, EventType.CommandIssued).filter((e) => e.step === 'shards')).toHaveLength(14);
    expect(ofType(events, EventType.LoopDone)).toHaveLength(1);
    expect(detail.steps.map((step) => step.step)).toEqual(['shards', 'partial']);
  });
});
