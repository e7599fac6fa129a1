import { EventType, foldEvents, stateChecksum } from '@noetl/event-kernel';
import { EVENT_SELECT_LIST, toLedgerEvent, type EventRow } from '@noetl/storage';
import type { EventView, WorkerView } from '@noetl/runtime';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { startRoleApp, type CliServerProcess } from '../support/cli-server-process';
import { ofType, terminalEvents } from '../support/ledger-checks';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { requireNats, requireRedis } from '../support/services';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { TEST_ENCRYPTION_KEY } from '../support/test-engine';
import { waitFor } from '../support/wait-for';

const header = (path: string) => `apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: {name: ${path.replace(/\W/g, '_')}, path: ${path}}\n`;

/** A javascript body that keeps its worker busy for `ms` (QuickJS has no sleep). */
const busy = (ms: number) => `const t = Date.now(); while (Date.now() - t < ${ms}) {} return item * 2;`;

const PLAYBOOKS = {
  chain: `${header('topology/chain')}workflow:
  - step: a
    tool: {kind: javascript, code: "return {n: 1}"}
    next: [{step: b}]
  - step: b
    tool: {kind: javascript, code: "return {n: input.n + 1}", input: {n: "{{ a.n }}"}}
    next: [{step: c}]
  - step: c
    tool: {kind: javascript, code: "return {n: input.n + 1}", input: {n: "{{ b.n }}"}}
`,
  loop: (items: number, rowMs: number) => `${header(`topology/loop-${items}`)}workflow:
  - step: each
    loop:
      in: "{{ range(${items}) | list }}"
      iterator: item
      spec: {mode: parallel, max_in_flight: 4, frame: {max_rows: 2, lease_seconds: 3, heartbeat_seconds: 1}}
    tool: {kind: javascript, input: {item: "{{ item }}"}, code: "${busy(rowMs)}"}
`,
  child: `${header('topology/child')}workflow:
  - step: only
    tool: {kind: javascript, code: "return {from_child: 7}"}
`,
  parent: `${header('topology/parent')}workflow:
  - step: call
    tool: {kind: playbook, path: topology/child}
`,
  retry: `${header('topology/retry')}workflow:
  - step: start
    set: {ctx.started_at: "{{ now() }}"}
    next: [{step: check}]
  - step: check
    tool:
      kind: javascript
      input: {started_at: "{{ ctx.started_at }}"}
      code: "if (Date.now() - Date.parse(started_at) < 2000) throw new Error('not yet'); return {ready: true};"
    retry:
      - when: "{{ error.kind == 'code' }}"
        then: {max_attempts: 8, initial_delay: 0.2, backoff_multiplier: 2.0, jitter: false}
`,
  python: `${header('topology/python')}workflow:
  - step: py
    tool: {kind: python, code: "result = {'py': 41 + 1}"}
`,
  sleepy: `${header('topology/sleepy')}workflow:
  - step: wait
    tool: {kind: sleep, seconds: 600}
`,
};

/**
 * The deployable topology (issues 9 and 10): the api, the scheduler (with
 * the event relay), two workers and two projector shards as separate OS
 * processes from the built apps, as the image runs them, over one database
 * and NATS. One worker runs only `javascript` (NOETL_WORKER_TOOLS).
 * Everything goes through the REST API; who ran what is read from the ledger.
 */
describe('separate role processes over NATS', () => {
  let db: TestDatabase;
  let common: Record<string, string>;
  let api: CliServerProcess;
  let scheduler: CliServerProcess;
  let anyWorker: CliServerProcess;
  let jsWorker: CliServerProcess;
  let client: NoetlHttpClient;
  const started: CliServerProcess[] = [];

  const projectors: CliServerProcess[] = [];
  const start = async (role: 'api' | 'scheduler' | 'worker' | 'projector', env: Record<string, string> = {}) => {
    const process = await startRoleApp(role, { ...common, ...env });
    started.push(process);
    return process;
  };
  /** A worker on the API's control plane, with a worker key of the tenant (made once by the bootstrap admin key). */
  let workerKey: string;
  const startWorker = (env: Record<string, string> = {}) =>
    start('worker', { NOETL_SERVER_URL: api.url, NOETL_API_KEY: workerKey, NOETL_PYTHON: 'on', ...env });

  beforeAll(async () => {
    db = await createTestDatabase();
    common = {
      DATABASE_URL: db.url,
      NATS_URL: await requireNats(),
      REDIS_URL: await requireRedis(),
      NOETL_TENANT_ID: `topo-${randomBytes(4).toString('hex')}`,
      NOETL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      NOETL_SWEEP_MS: '200',
      NOETL_SHUTDOWN_GRACE_SECONDS: '5',
      // The relay (in the scheduler) and both projector shards must agree on it.
      NOETL_SHARD_COUNT: '2',
      LOG_LEVEL: 'warn',
    };
    api = await start('api');
    client = new NoetlHttpClient(api.url, api.apiKey);
    workerKey = await client.createKey('worker');
    scheduler = await start('scheduler');
    anyWorker = await startWorker();
    // No grace: stopped, it gives back at once whatever it holds (the drain test below relies on it).
    jsWorker = await startWorker({ NOETL_WORKER_TOOLS: 'javascript', NOETL_SHUTDOWN_GRACE_SECONDS: '0' });
    projectors.push(
      await start('projector', { NOETL_SHARD_ID: 'noetl-projector-0' }),
      await start('projector', { NOETL_SHARD_ID: 'noetl-projector-1' }),
    );
    for (const content of [
      PLAYBOOKS.chain,
      PLAYBOOKS.loop(20, 20),
      PLAYBOOKS.loop(40, 400),
      PLAYBOOKS.child,
      PLAYBOOKS.parent,
      PLAYBOOKS.retry,
      PLAYBOOKS.python,
      PLAYBOOKS.sleepy,
    ]) {
      await client.register(content);
    }
  }, 120_000);

  afterAll(async () => {
    for (const process of started) await process.stop();
    await db?.drop();
  }, 60_000);

  const workers = async (): Promise<WorkerView[]> => (await client.request('get', '/api/workers').expect(200)).body.workers;
  const workerIdOf = async (restricted: boolean) =>
    waitFor(async () => (await workers()).find((w) => w.status === 'active' && (w.tools !== null) === restricted)?.worker_id, {
      description: `the ${restricted ? 'restricted' : 'unrestricted'} worker to register`,
    });
  /** Every claim of commands and frames in the execution and its children: [kind, step, worker]. */
  const claims = async (executionId: string): Promise<{ step: string | null; worker: string; type: string }[]> => {
    const executions = [executionId, ...(await client.children(executionId)).map((child) => child.execution_id)];
    const events = (
      await Promise.all(executions.map((id) => client.events(id, [EventType.CommandClaimed, EventType.FrameDispatched])))
    ).flat();
    return events.map((event) => ({
      step: event.step,
      type: event.event_type,
      worker: String((event.payload as { worker_id: string }).worker_id),
    }));
  };

  it('lists both workers with their capacity and restriction', async () => {
    const all = await workerIdOf(false);
    const js = await workerIdOf(true);
    const listed = await workers();
    expect(listed.find((w) => w.worker_id === all)).toMatchObject({ status: 'active', slots: 8, tools: null });
    expect(listed.find((w) => w.worker_id === js)).toMatchObject({ status: 'active', slots: 8, tools: ['javascript'] });
  });

  it('runs a chain, a parallel loop of frames, a sub-playbook, a retry, a python step and a cancel, each command on a worker allowed to run it', async () => {
    const all = await workerIdOf(false);
    const js = await workerIdOf(true);
    const ids = {
      chain: await client.execute('topology/chain'),
      loop: await client.execute('topology/loop-20'),
      parent: await client.execute('topology/parent'),
      retry: await client.execute('topology/retry'),
      python: await client.execute('topology/python'),
      sleepy: await client.execute('topology/sleepy'),
    };
    await client.waitForEvent(ids.sleepy, EventType.TimerScheduled);
    await client.request('post', `/api/executions/${ids.sleepy}/cancel`).send({ reason: 'topology test' }).expect(202);

    const detail = async (id: string) => client.waitForTerminal(id, 30_000);
    expect(await detail(ids.chain)).toMatchObject({ status: 'COMPLETED', result: { n: 3 } });
    const loop = await detail(ids.loop);
    expect(loop.status).toBe('COMPLETED');
    expect(loop.loops).toEqual([expect.objectContaining({ total: 20, done: 20, failed: 0, completed: true })]);
    expect(await detail(ids.parent)).toMatchObject({ status: 'COMPLETED', result: expect.objectContaining({ from_child: 7 }) });
    const retried = await detail(ids.retry);
    expect(retried.status).toBe('COMPLETED');
    expect(retried.steps.find((s) => s.step === 'check')!.attempts).toBeGreaterThan(1);
    expect(await detail(ids.python)).toMatchObject({ status: 'COMPLETED', result: { py: 42 } });
    expect((await detail(ids.sleepy)).status).toBe('CANCELLED');

    const ran = (await Promise.all(Object.values(ids).map(claims))).flat();
    // The python step needs a worker that runs python: only the unrestricted one.
    expect(ran.filter((claim) => claim.step === 'py').map((claim) => claim.worker)).toEqual([all]);
    // Everything else is javascript (or a playbook call, run by the unrestricted worker): either worker, none other.
    expect(new Set(ran.map((claim) => claim.worker))).toEqual(new Set([all, js]));
    for (const claim of ran.filter((c) => c.worker === js)) expect(['a', 'b', 'c', 'each', 'only', 'check']).toContain(claim.step);
    const perWorker = (worker: string) => ran.filter((claim) => claim.worker === worker).length;
    console.info(
      `topology: ${ran.length} claims (commands and frames): ${perWorker(all)} on the unrestricted worker, ${perWorker(js)} on the javascript-only one`,
    );
  }, 90_000);

  it('finishes a loop with nothing lost or duplicated when a worker is killed, the scheduler restarted and a worker drained mid-run', async () => {
    const executionId = await client.execute('topology/loop-40');
    await waitFor(async () => (await client.events(executionId, [EventType.FrameCommitted])).length >= 2, { timeoutMs: 20_000 });
    await anyWorker.crash();
    await scheduler.stop();
    scheduler = await start('scheduler');
    anyWorker = await startWorker();
    const js = await workerIdOf(true);
    // Stop the javascript worker while it holds a frame: with no grace it gives the frame back at once.
    await waitFor(
      async () => {
        const events = await client.events(executionId, [EventType.FrameDispatched, EventType.FrameCommitted]);
        const held = ofType(events, EventType.FrameDispatched).filter((e) => (e.payload as { worker_id: string }).worker_id === js);
        return held.some(
          (d) => !events.some((c) => c.event_type === EventType.FrameCommitted && c.frame_id === d.frame_id && c.event_id > d.event_id),
        );
      },
      { timeoutMs: 20_000, description: 'the javascript worker to hold a frame' },
    );
    await jsWorker.stop();

    const detail = await client.waitForTerminal(executionId, 60_000);
    expect(detail.status).toBe('COMPLETED');
    expect(detail.loops).toEqual([expect.objectContaining({ total: 40, done: 40, failed: 0, completed: true })]);
    const result = detail.result as { results: number[] };
    expect(result.results).toEqual(Array.from({ length: 40 }, (_, i) => i * 2));

    const events: EventView[] = await client.events(executionId);
    expect(ofType(events, EventType.LoopDone)).toHaveLength(1);
    expect(terminalEvents(events)).toHaveLength(1);
    const committed = ofType(events, EventType.FrameCommitted).map((e) => (e.payload as { frame_index: number }).frame_index);
    expect(committed.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // The drained worker left nothing for the reaper: each frame it held was committed or released by it.
    const abandoned = ofType(events, EventType.FrameAbandoned).map((e) => e.payload as { worker_id?: string; reason: string });
    expect(abandoned.filter((a) => a.worker_id === js && a.reason !== 'released by its worker')).toEqual([]);
    expect(abandoned.some((a) => a.worker_id === js && a.reason === 'released by its worker')).toBe(true);
  }, 120_000);

  it('projects every execution through the relay and two projector shards; a shard killed with SIGKILL and restarted loses and duplicates nothing', async () => {
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      const consistent = async (executionIds: string[]): Promise<boolean> => {
        for (const executionId of executionIds) {
          const [row] = (
            await pg.query<{ version: string; checksum: string }>(
              `SELECT version, checksum FROM noetl.projection WHERE projection_key = $1`,
              [executionId],
            )
          ).rows;
          const events = (
            await pg.query<EventRow>(`SELECT ${EVENT_SELECT_LIST} FROM noetl.event WHERE execution_id = $1 ORDER BY stream_version`, [
              executionId,
            ])
          ).rows.map(toLedgerEvent);
          if (!row || Number(row.version) !== events.length || row.checksum !== stateChecksum(foldEvents(events)!)) return false;
        }
        return true;
      };
      const runChains = async (n: number) => {
        const ids = await Promise.all(Array.from({ length: n }, () => client.execute('topology/chain')));
        for (const id of ids) expect((await client.waitForTerminal(id, 30_000)).status).toBe('COMPLETED');
        return ids;
      };
      const first = await runChains(6);
      await waitFor(() => consistent(first), { timeoutMs: 20_000, description: 'every execution projected by its shard' });

      await projectors[1]!.crash();
      const second = await runChains(6);
      projectors[1] = await start('projector', { NOETL_SHARD_ID: 'noetl-projector-1' });
      await waitFor(() => consistent([...first, ...second]), { timeoutMs: 30_000, description: 'the restarted shard to catch up' });

      // What the projection holds is what replay of the ledger says.
      const [projection] = (
        await pg.query<{ checksum: string }>(`SELECT checksum FROM noetl.projection WHERE projection_key = $1`, [second[0]])
      ).rows;
      const replayed = await client.request('get', '/api/replay/state').query({ execution_id: second[0] }).expect(200);
      expect(replayed.body.checksums.all).toBe(projection!.checksum);
    } finally {
      await pg.end();
    }
  }, 90_000);
});
