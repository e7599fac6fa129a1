import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { EventType } from '@noetl/event-kernel';
import { startCliServer, startRoleApp, type CliServerProcess } from '../support/cli-server-process';
import { ofType } from '../support/ledger-checks';
import { NoetlHttpClient, describeEvents } from '../support/noetl-http-client';
import { startScriptedHttpServer, type ScriptedHttpServer } from '../support/scripted-http-server';
import { requireNats } from '../support/services';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../support/test-database';
import { TEST_ENCRYPTION_KEY } from '../support/test-engine';
import { waitFor } from '../support/wait-for';

// Two process boots and a frame of slow rows drained at shutdown.
jest.setTimeout(90_000);

const ROWS = 4;
const PLAYBOOK = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: e2e_drained_frame, path: e2e/drained_frame}
workload: {slow: "", dsn: ""}
workflow:
  - step: each
    loop:
      in: "{{ range(${ROWS}) | list }}"
      iterator: item
      spec: {mode: parallel, frame: {max_rows: ${ROWS}, lease_seconds: 20, heartbeat_seconds: 2}}
      sink:
        # A connection of its own per row (another application_name): each sink opens a new one, checked against the runtime's database.
        tool: {kind: postgres, connection: "{{ dsn }}?application_name=row{{ item }}", command: "INSERT INTO drained (item) VALUES ($1)", params: ["{{ item }}"]}
    tool: {kind: http, url: "{{ slow }}/slow?ms=700&item={{ item }}"}
`;

/**
 * Found by the chaos harness (issue 14, all-roles-sigterm): a worker
 * SIGTERMed mid-frame drains its frame for NOETL_SHUTDOWN_GRACE_SECONDS,
 * but the process closed its database connection while the drain ran, so a
 * row's postgres sink that opened a new connection (each is checked against
 * the runtime's database, which it must not reach) failed with "Driver not
 * Connected" and the frame committed a failed row. The drain must finish
 * before any connection closes.
 */
describe('a worker stopped with SIGTERM mid-frame', () => {
  let database: TestDatabase;
  let sinkDatabase: TestDatabase;
  let scripted: ScriptedHttpServer;
  let sink: Client;
  const processes: CliServerProcess[] = [];

  beforeAll(async () => {
    [database, sinkDatabase, scripted] = await Promise.all([createTestDatabase(), createEmptyDatabase(), startScriptedHttpServer()]);
    sink = new Client({ connectionString: sinkDatabase.url });
    await sink.connect();
    await sink.query('CREATE TABLE drained (item int NOT NULL)');
  });

  afterAll(async () => {
    for (const started of processes) await started.stop();
    await sink?.end();
    await Promise.all([database?.drop(), sinkDatabase?.drop(), scripted?.close()]);
  });

  it('finishes the frame it holds, every row sunk once, before it closes its connections', async () => {
    const shared = {
      DATABASE_URL: database.url,
      NATS_URL: await requireNats(),
      NOETL_TENANT_ID: `t${randomBytes(4).toString('hex')}`,
      NOETL_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'warn',
    };
    const api = await startCliServer({ ...shared, NOETL_ROLES: 'api,scheduler', NOETL_SWEEP_MS: '200' });
    processes.push(api);
    const client = new NoetlHttpClient(api.url, api.apiKey);
    const worker = await startRoleApp('worker', {
      ...shared,
      NOETL_SERVER_URL: api.url,
      NOETL_API_KEY: await client.createKey('worker'),
      NOETL_SHUTDOWN_GRACE_SECONDS: '20',
    });
    processes.push(worker);
    await client.register(PLAYBOOK);
    const id = await client.execute('e2e/drained_frame', { slow: scripted.url, dsn: sinkDatabase.url });
    await waitFor(async () => Number((await sink.query<{ n: string }>('SELECT count(*) AS n FROM drained')).rows[0]!.n) >= 1, {
      timeoutMs: 20_000,
      intervalMs: 20,
      description: 'the first row sunk',
    });
    await worker.stop();

    const detail = await client.waitForTerminal(id, 30_000);
    const events = await client.events(id);
    expect({ status: detail.status, error: detail.error, events: describeEvents(events) }).toEqual({
      status: 'COMPLETED',
      error: null,
      events: describeEvents(events),
    });
    const commits = ofType(events, EventType.FrameCommitted).map((e) => e.payload as { failed_rows: unknown[] });
    expect(commits).toEqual([expect.objectContaining({ failed_rows: [] })]);
    const { rows } = await sink.query<{ item: number }>('SELECT item FROM drained ORDER BY item');
    expect(rows.map((r) => r.item)).toEqual(Array.from({ length: ROWS }, (_, i) => i));
  });
});
