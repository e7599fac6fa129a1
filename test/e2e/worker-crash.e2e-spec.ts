import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { EventType } from '@noetl/event-kernel';
import type { EventView } from '@noetl/runtime';
import { startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { e2ePlaybook } from '../support/e2e-app';
import { ofType, terminalEvents } from '../support/ledger-checks';
import { NoetlHttpClient, describeEvents } from '../support/noetl-http-client';
import { startScriptedHttpServer, type ScriptedHttpServer } from '../support/scripted-http-server';
import { requireNats } from '../support/services';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../support/test-database';
import { TEST_ENCRYPTION_KEY } from '../support/test-engine';
import { waitFor } from '../support/wait-for';

// Three process boots and a frame lease expiry.
jest.setTimeout(90_000);

const ITEMS = 12;

/**
 * DESIGN.md invariant 4 across processes: a worker process holding loop
 * frames is killed with SIGKILL; the scheduler abandons its frames when their
 * lease runs out, another worker process claims each one again whole, and an
 * idempotent per-iteration sink ends with every row exactly once.
 */
describe('a worker process killed mid-frame', () => {
  let database: TestDatabase;
  /** Where the loop's sink writes: beside the runtime's database, which postgres steps may not reach. */
  let sinkDatabase: TestDatabase;
  let scripted: ScriptedHttpServer;
  let sinkDb: Client;
  const processes: CliServerProcess[] = [];

  /** Settings every process of the suite shares; a tenant of its own keeps its NATS subjects apart from other runs. */
  let shared: Record<string, string>;

  const start = async (env: Record<string, string>): Promise<CliServerProcess> => {
    const started = await startCliServer({ ...shared, ...env });
    processes.push(started);
    return started;
  };

  beforeAll(async () => {
    const nats = await requireNats();
    [database, sinkDatabase, scripted] = await Promise.all([createTestDatabase(), createEmptyDatabase(), startScriptedHttpServer()]);
    shared = {
      DATABASE_URL: database.url,
      NATS_URL: nats,
      NOETL_TENANT_ID: `t${randomBytes(4).toString('hex')}`,
      LOG_LEVEL: 'warn',
    };
    sinkDb = new Client({ connectionString: sinkDatabase.url });
    await sinkDb.connect();
    await sinkDb.query('CREATE TABLE crash_sink (id int PRIMARY KEY, val int NOT NULL)');
  });

  afterAll(async () => {
    for (const started of processes) await started.stop();
    await sinkDb?.end();
    await Promise.all([database?.drop(), sinkDatabase?.drop(), scripted?.close()]);
  });

  const sinkCounts = async (): Promise<{ rows: number; ids: number; vals: number[] }> => {
    const { rows } = await sinkDb.query<{ rows: number; ids: number; vals: number[] }>(
      'SELECT count(*)::int AS rows, count(DISTINCT id)::int AS ids, array_agg(DISTINCT val) AS vals FROM crash_sink',
    );
    return rows[0]!;
  };

  it("abandons the dead worker's frames after their lease, finishes them on another worker, and sinks every row once", async () => {
    const api = await start({ NOETL_ROLES: 'api,scheduler', NOETL_SWEEP_MS: '200', NOETL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY });
    const client = new NoetlHttpClient(api.url, api.apiKey);
    // No encryption key: a worker on the HTTP control plane asks the API for credentials (with a worker key) and decrypts none itself.
    const workerEnv = {
      NOETL_ROLES: 'worker',
      NOETL_SERVER_URL: api.url,
      NOETL_WORKER_CONCURRENCY: '2',
      NOETL_API_KEY: await client.createKey('worker'),
    };
    const doomed = await start(workerEnv);
    const db = new URL(sinkDatabase.url);
    await client.createCredential('crash_pg', 'postgres', {
      db_host: db.hostname,
      db_port: Number(db.port || 5432),
      db_user: decodeURIComponent(db.username),
      db_password: decodeURIComponent(db.password),
      db_name: db.pathname.slice(1),
    });
    await client.register(e2ePlaybook('worker-crash-loop'));

    const id = await client.execute('e2e/worker_crash_loop', { echo: scripted.url });
    // Mid-loop: a frame is out and a row is already sunk, but the loop is not done.
    await waitFor(
      async () => {
        const [events, sunk] = await Promise.all([client.events(id, [EventType.FrameDispatched, EventType.LoopDone]), sinkCounts()]);
        return ofType(events, EventType.FrameDispatched).length > 0 && sunk.rows > 0 && ofType(events, EventType.LoopDone).length === 0;
      },
      { timeoutMs: 30_000, intervalMs: 50, description: 'a dispatched frame and a sunk row before loop.done' },
    );
    await doomed.crash();
    await start(workerEnv);

    const detail = await client.waitForTerminal(id, 60_000);
    const events = await client.events(id);
    const summary = describeEvents(events);
    expect({ status: detail.status, summary }).toEqual({ status: 'COMPLETED', summary });
    expect(terminalEvents(events).map((e) => e.event_type)).toEqual([EventType.ExecutionCompleted]);
    expect(ofType(events, EventType.LoopDone)).toHaveLength(1);
    expect(detail.loops).toEqual([expect.objectContaining({ step: 'each', total: ITEMS, done: ITEMS, failed: 0, completed: true })]);

    // Each of the 4 frames committed exactly once.
    const commits = ofType(events, EventType.FrameCommitted).map((e) => e.frame_id);
    expect(commits).toHaveLength(ITEMS / 3);
    expect(new Set(commits).size).toBe(commits.length);

    // Every frame the dead worker held uncommitted was abandoned, then claimed again by the new worker.
    const deadWorker = workerOf(ofType(events, EventType.FrameDispatched)[0]!);
    const held = framesHeldAtDeath(events, deadWorker);
    expect(held.length).toBeGreaterThan(0);
    for (const frameId of held) {
      const ofFrame = events.filter((e) => e.frame_id === frameId);
      const abandoned = ofType(ofFrame, EventType.FrameAbandoned);
      expect(abandoned.map((e) => workerOf(e))).toEqual([deadWorker]);
      const redispatched = ofType(ofFrame, EventType.FrameDispatched).slice(1);
      expect(redispatched.map((e) => [workerOf(e) === deadWorker, (e.payload as { attempt: number }).attempt])).toEqual([[false, 2]]);
      expect(ofType(ofFrame, EventType.FrameCommitted)).toHaveLength(1);
    }

    expect(await sinkCounts()).toEqual({ rows: ITEMS, ids: ITEMS, vals: [400] });
  });
});

function workerOf(event: EventView): string | undefined {
  return (event.payload as { worker_id?: string }).worker_id;
}

/** Frames dispatched to `worker` whose dispatch was not followed by their commit before another dispatch (the worker died holding them). */
function framesHeldAtDeath(events: EventView[], worker: string | undefined): string[] {
  const holder = new Map<string, string | undefined>();
  const held = new Set<string>();
  for (const event of events) {
    if (!event.frame_id) continue;
    if (event.event_type === EventType.FrameDispatched) {
      if (holder.has(event.frame_id) && holder.get(event.frame_id) === worker) held.add(event.frame_id);
      holder.set(event.frame_id, workerOf(event));
    } else if (event.event_type === EventType.FrameCommitted) {
      holder.delete(event.frame_id);
    }
  }
  return [...held];
}
