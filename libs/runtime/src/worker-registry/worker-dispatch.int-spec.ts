import { EventType } from '@noetl/event-kernel';
import { WorkerRepository } from '@noetl/storage';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { waitFor } from '../../../../test/support/wait-for';
import { Subjects, type Notifications } from '../bus/bus';
import { InProcessBus } from '../bus/in-process-bus';
import { Offers } from '../bus/offers';

const PLAYBOOK = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: dispatch, path: tests/dispatch}
workflow:
  - step: start
    tool: {kind: python, code: "result = 1"}
`;

/** The worker side with no worker running: the spec plays the workers. */
describe('worker registry, targeted offers, tool restrictions and release', () => {
  let t: TestEngine;

  beforeAll(async () => {
    t = await startTestEngine({ roles: ['scheduler'] });
    await t.engine.own.catalog.register(PLAYBOOK);
  });
  afterAll(async () => t?.close());

  async function issuedCommand(): Promise<{ executionId: string; commandId: string }> {
    const { execution_id: executionId } = await t.engine.own.executions.start({ path: 'tests/dispatch' });
    const commandId = await waitFor(
      async () =>
        (await t.engine.own.executions.events(executionId, { type: [EventType.CommandIssued] })).events[0]?.command_id ?? undefined,
    );
    return { executionId, commandId };
  }

  it('refuses a claim by a worker that does not run every tool kind of the command', async () => {
    const { commandId } = await issuedCommand();
    await expect(t.engine.own.controlPlane.claim(commandId, { worker_id: 'js-only', tools: ['javascript'] })).rejects.toMatchObject({
      code: 'tool_not_allowed',
    });
    await expect(t.engine.own.controlPlane.claim(commandId, { worker_id: 'py', tools: ['python'] })).resolves.toMatchObject({
      command_id: commandId,
    });
  });

  it('releases a held command: claimable again at once, with no attempt spent', async () => {
    const { executionId, commandId } = await issuedCommand();
    const leaving = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'leaving' });
    await t.engine.own.controlPlane.release(commandId, { worker_id: 'leaving', lease_token: leaving.lease_token });
    const next = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'staying' });
    expect(next).toMatchObject({ command_id: commandId, attempt: 1 });
    await t.engine.own.controlPlane.complete(commandId, { worker_id: 'staying', lease_token: next.lease_token, result: 1 });
    expect((await t.engine.waitForTerminal(executionId, { timeoutMs: 10_000 })).status).toBe('COMPLETED');
    const released = (await t.engine.own.executions.events(executionId, { type: [EventType.CommandReleased, EventType.CommandIssued] }))
      .events;
    expect(released.map((event) => event.event_type)).toEqual([EventType.CommandIssued, EventType.CommandReleased]);
  });

  it('refuses a release by a worker that does not hold the command', async () => {
    const { commandId } = await issuedCommand();
    const { lease_token } = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'holder' });
    await expect(t.engine.own.controlPlane.release(commandId, { worker_id: 'other', lease_token })).rejects.toMatchObject({
      code: 'lease_lost',
    });
    await expect(t.engine.own.controlPlane.release(commandId, { worker_id: 'holder', lease_token: 'guessed' })).rejects.toMatchObject({
      code: 'lease_lost',
    });
  });

  it('lists reported workers with their capacity, and one that stopped reporting as stale', async () => {
    const report = { node: 'n1', slots: 4, free_slots: 3, status: 'ACTIVE' as const };
    await t.engine.own.controlPlane.reportWorker({ worker_id: 'w-live', ...report, tools: ['javascript'], pool: 'gpu' });
    await t.engine.own.controlPlane.reportWorker({ worker_id: 'w-gone', ...report });
    await t.database.query(`UPDATE noetl.worker SET heartbeat_at = now() - interval '1 hour' WHERE worker_id = 'w-gone'`);
    const workers = await t.engine.own.workers.list();
    expect(workers.find((w) => w.worker_id === 'w-live')).toMatchObject({
      status: 'active',
      slots: 4,
      free_slots: 3,
      tools: ['javascript'],
      pool: 'gpu',
    });
    expect(workers.find((w) => w.worker_id === 'w-gone')).toMatchObject({ status: 'stale', tools: null, pool: null });
  });

  it('filters the list by status, and a stopping worker prunes the workers stopped or silent for over an hour', async () => {
    const report = { node: 'n2', slots: 1, free_slots: 1 };
    await t.engine.own.controlPlane.reportWorker({ worker_id: 'w-old-stop', ...report, status: 'STOPPED' });
    await t.engine.own.controlPlane.reportWorker({ worker_id: 'w-old-silent', ...report, status: 'ACTIVE' });
    await t.engine.own.controlPlane.reportWorker({ worker_id: 'w-running', ...report, status: 'ACTIVE' });
    await t.database.query(`UPDATE noetl.worker SET stopped_at = now() - interval '61 minutes' WHERE worker_id = 'w-old-stop'`);
    await t.database.query(`UPDATE noetl.worker SET heartbeat_at = now() - interval '61 minutes' WHERE worker_id = 'w-old-silent'`);
    await t.engine.own.controlPlane.reportWorker({ worker_id: 'w-new-stop', ...report, status: 'STOPPED' });

    const left = (
      await t.database.query<{ worker_id: string }>(`SELECT worker_id FROM noetl.worker WHERE node = 'n2' ORDER BY worker_id`)
    ).map((row) => row.worker_id);
    expect(left).toEqual(['w-new-stop', 'w-running']);
    expect((await t.engine.own.workers.list('stopped')).map((w) => w.worker_id)).toEqual(['w-new-stop']);
    expect((await t.engine.own.workers.list('active')).map((w) => w.worker_id)).toContain('w-running');
    expect((await t.engine.own.workers.list('active')).map((w) => w.worker_id)).not.toContain('w-new-stop');
  });

  it('offers work to a live worker with free slots that runs its kinds, else on the broadcast subject', async () => {
    const bus = new InProcessBus();
    const heard: { subject: string; message: Notifications['work'] }[] = [];
    const tenant = t.config.tenancy.tenantId;
    for (const subject of [Subjects.work(tenant), Subjects.workFor(tenant, 'w-py'), Subjects.workFor(tenant, 'w-js')]) {
      bus.subscribe(subject, (message) => heard.push({ subject, message }));
    }
    const workerRows = new WorkerRepository();
    const scope = t.config.tenancy;
    await workerRows.report(t.database, scope, {
      worker_id: 'w-py',
      node: 'n',
      slots: 2,
      free_slots: 2,
      status: 'ACTIVE',
      tools: ['python'],
    });
    await workerRows.report(t.database, scope, {
      worker_id: 'w-js',
      node: 'n',
      slots: 8,
      free_slots: 8,
      status: 'ACTIVE',
      tools: ['javascript'],
    });
    const offers = new Offers({ db: t.database, bus, workerRows, scope, freshMs: 60_000 });
    const offer = (kinds: string[]) => offers.command({ commandId: '1', executionId: '2', kinds });
    // Two free slots on the one python worker, then nobody runs python with a free slot: the broadcast.
    for (let i = 0; i < 3; i++) await offer(['python']);
    await offer(['javascript']);
    await offer(['http']);
    await waitFor(async () => heard.length === 5);
    expect(heard.map((h) => h.subject)).toEqual([
      Subjects.workFor(tenant, 'w-py'),
      Subjects.workFor(tenant, 'w-py'),
      Subjects.work(tenant),
      Subjects.workFor(tenant, 'w-js'),
      Subjects.work(tenant),
    ]);
    await bus.close();
  });

  it("offers pool work only to a live worker of that pool, else on the pool's own broadcast subject; work without a pool never to a pool's worker", async () => {
    const bus = new InProcessBus();
    const heard: string[] = [];
    const tenant = t.config.tenancy.tenantId;
    const subjects = [
      Subjects.work(tenant),
      Subjects.work(tenant, 'gpu'),
      Subjects.work(tenant, 'edge'),
      Subjects.workFor(tenant, 'w-gpu'),
      Subjects.workFor(tenant, 'w-plain'),
    ];
    for (const subject of subjects) bus.subscribe(subject, () => heard.push(subject));
    const workerRows = new WorkerRepository();
    const scope = t.config.tenancy;
    await workerRows.report(t.database, scope, { worker_id: 'w-gpu', node: 'n', slots: 1, free_slots: 1, status: 'ACTIVE', pool: 'gpu' });
    await workerRows.report(t.database, scope, { worker_id: 'w-plain', node: 'n', slots: 1, free_slots: 1, status: 'ACTIVE' });
    const offers = new Offers({ db: t.database, bus, workerRows, scope, freshMs: 60_000 });
    const offer = (pool: string | null) => offers.command({ commandId: '1', executionId: '2', kinds: [], pool });
    // The gpu worker's one slot, then gpu's broadcast; edge has no worker: its broadcast; no pool: the plain worker's slot, then the plain broadcast.
    for (const pool of ['gpu', 'gpu', 'edge', null, null]) await offer(pool);
    await waitFor(async () => heard.length === 5);
    expect(heard).toEqual([
      Subjects.workFor(tenant, 'w-gpu'),
      Subjects.work(tenant, 'gpu'),
      Subjects.work(tenant, 'edge'),
      Subjects.workFor(tenant, 'w-plain'),
      Subjects.work(tenant),
    ]);
    expect(Subjects.work(tenant, 'gpu')).toBe(`noetl.${tenant}.pool.gpu.work`);
    await bus.close();
  });

  it('exports the command backlog as a gauge read at scrape time', async () => {
    await issuedCommand();
    const metrics = await t.engine.metrics.registry.getSingleMetricAsString('noetl_command_backlog_total');
    // Work without a pool is the `pool=""` series.
    const value = Number(/noetl_command_backlog_total\{pool=""\} (\d+)/.exec(metrics)?.[1]);
    const [row] = await t.database.query<{ count: number }>(`SELECT count(*)::int AS count FROM noetl.command WHERE status = 'ISSUED'`);
    expect(value).toBeGreaterThan(0);
    expect(value).toBe(row?.count);
  });
});
