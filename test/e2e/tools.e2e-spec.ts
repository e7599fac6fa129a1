import { EventType } from '@noetl/event-kernel';
import { startTestServer, type TestServer } from '../../tools/test-server/src/server';
import { e2ePlaybook, startE2eApp, type E2eApp } from '../support/e2e-app';
import { callsOf, enteredSteps, ofType, terminalEvents } from '../support/ledger-checks';
import { startScriptedHttpServer, type ScriptedHttpServer } from '../support/scripted-http-server';
import { createEmptyDatabase, type TestDatabase } from '../support/test-database';

// One app boot per file plus executions that wait on real timers and servers.
jest.setTimeout(30_000);

describe('each tool kind over the REST API', () => {
  let app: E2eApp;
  let testServer: TestServer;
  let scripted: ScriptedHttpServer;
  /** The database postgres steps work in: beside the runtime's, never inside it. */
  let userDatabase: TestDatabase;

  beforeAll(async () => {
    [app, testServer, scripted, userDatabase] = await Promise.all([
      startE2eApp(),
      startTestServer(),
      startScriptedHttpServer(),
      createEmptyDatabase(),
    ]);
  });

  afterAll(async () => {
    await Promise.all([app?.close(), testServer?.close(), scripted?.close(), userDatabase?.drop()]);
  });

  it('http: calls a loopback server with params, then posts a templated JSON body with headers', async () => {
    const detail = await app.client.run(e2ePlaybook('http-tool'), { api: testServer.url, echo: scripted.url });

    expect(detail.status).toBe('COMPLETED');
    expect(detail.result).toMatchObject({
      status_code: 200,
      data: { method: 'POST', header: 'from-playbook', body: { count: 5, has_more: false } },
    });
    const events = await app.client.events(detail.execution_id);
    expect(callsOf(events).map((call) => call.step)).toEqual(['list_users', 'post_count']);
    const listed = ofType(events, EventType.StepExit).find((e) => e.step === 'list_users');
    expect(listed?.payload).toMatchObject({
      status: 'COMPLETED',
      result: { status_code: 200, data: { offset: 30, limit: 10, total: 35 } },
    });
  });

  it('postgres: runs statements through a stored credential in one transaction, then queries through a DSN', async () => {
    const db = new URL(userDatabase.url);
    await app.client.createCredential('e2e_pg', 'postgres', {
      db_host: db.hostname,
      db_port: Number(db.port || 5432),
      db_user: decodeURIComponent(db.username),
      db_password: decodeURIComponent(db.password),
      db_name: db.pathname.slice(1),
    });

    const detail = await app.client.run(e2ePlaybook('postgres-tool'), { dsn: userDatabase.url });

    expect(detail.status).toBe('COMPLETED');
    expect(detail.result).toMatchObject({ rows: [{ id: 2 }, { id: 3 }], row_count: 2 });
    const events = await app.client.events(detail.execution_id);
    const write = ofType(events, EventType.StepExit).find((e) => e.step === 'write');
    expect(write?.payload).toMatchObject({ status: 'COMPLETED', result: { rows: [{ n: 3, total: 60.5 }], statement_count: 3 } });
  });

  it("postgres: refuses the runtime's own database however its DSN is spelled (issue 15 defect 7)", async () => {
    const ledger = new URL(app.databaseUrl);
    ledger.hostname = 'localhost';
    ledger.port = '';
    ledger.search = '?application_name=innocent';

    const detail = await app.client.run(e2ePlaybook('postgres-ledger'), { dsn: ledger.toString() });

    expect(detail).toMatchObject({
      status: 'FAILED',
      error: {
        step: 'reach_ledger',
        kind: 'auth',
        message: `postgres: refusing to connect to database "${new URL(app.databaseUrl).pathname.slice(1)}": it is this runtime's own ledger database (NOETL_TOOLS_LEDGER_ACCESS=allow permits it)`,
      },
    });
    const exit = ofType(await app.client.events(detail.execution_id), EventType.StepExit).find((e) => e.step === 'reach_ledger');
    expect(exit?.payload).toMatchObject({ status: 'FAILED', error: { code: 'PROTECTED_DATABASE', retryable: false } });
  });

  it('javascript, python and noop: each reads the result of the one before', async () => {
    const detail = await app.client.run(e2ePlaybook('code-tools'));

    expect(detail).toMatchObject({ status: 'COMPLETED', result: { joined: 'ALPHA-BETA-GAMMA', squared: 9 } });
    expect(detail.steps.map((s) => [s.step, s.status])).toEqual([
      ['js', 'COMPLETED'],
      ['py', 'COMPLETED'],
      ['done', 'COMPLETED'],
    ]);
  });

  it('sleep: waits on a durable timer (timer.scheduled then timer.fired) and issues no command for the sleep step', async () => {
    const detail = await app.client.run(e2ePlaybook('sleep-tool'));

    expect(detail.status).toBe('COMPLETED');
    const events = await app.client.events(detail.execution_id);
    const scheduled = ofType(events, EventType.TimerScheduled);
    expect(scheduled).toEqual([expect.objectContaining({ step: 'nap' })]);
    const timerId = (scheduled[0]?.payload as { timer_id: string }).timer_id;
    const fired = ofType(events, EventType.TimerFired);
    expect(fired.map((e) => e.payload)).toEqual([expect.objectContaining({ timer_id: timerId, purpose: 'sleep' })]);
    expect(ofType(events, EventType.CommandIssued).map((e) => e.step)).toEqual(['before', 'after']);
    const before = ofType(events, EventType.StepExit).find((e) => e.step === 'before');
    const sleptUntil = (detail.result as { slept_until: string }).slept_until;
    expect(Date.parse(sleptUntil) - Date.parse(before!.created_at)).toBeGreaterThanOrEqual(900);
  });

  it('workbook: a step calls a named workbook task with its own input', async () => {
    const detail = await app.client.run(e2ePlaybook('workbook-tool'), { who: 'e2e' });

    expect(detail).toMatchObject({ status: 'COMPLETED', result: { greeting: 'hello e2e', length: 3 } });
    expect(enteredSteps(await app.client.events(detail.execution_id))).toEqual(['call_greet', 'done']);
  });

  it('playbook: the parent step completes only after the child execution ends, and the child names its parent', async () => {
    await app.client.register(e2ePlaybook('child'));
    const detail = await app.client.run(e2ePlaybook('parent'), { n: 21, nap_seconds: 1 });

    expect(detail).toMatchObject({ status: 'COMPLETED', result: { from_child: 42 } });
    const [child, ...others] = await app.client.children(detail.execution_id);
    expect(others).toEqual([]);
    expect(child).toMatchObject({
      path: 'e2e/child',
      status: 'COMPLETED',
      parent_execution_id: detail.execution_id,
      result: { doubled: 42 },
    });
    const childEvents = await app.client.events(child!.execution_id);
    expect(terminalEvents(childEvents).map((e) => e.event_type)).toEqual([EventType.ExecutionCompleted]);
    const childEnd = Date.parse(terminalEvents(childEvents)[0]!.created_at);
    const parentEvents = await app.client.events(detail.execution_id);
    const callExit = ofType(parentEvents, EventType.StepExit).find((e) => e.step === 'call_child');
    expect(callExit?.payload).toMatchObject({ status: 'COMPLETED', result: { doubled: 42 } });
    expect(Date.parse(callExit!.created_at)).toBeGreaterThanOrEqual(childEnd);
  });
});
