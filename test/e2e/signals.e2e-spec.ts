import { EventType } from '@noetl/event-kernel';
import { startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { e2ePlaybook, startE2eApp, type E2eApp } from '../support/e2e-app';
import { ofType, terminalEvents } from '../support/ledger-checks';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// One app boot, two server boots for the crash, and a one-second timeout.
jest.setTimeout(60_000);

/** Waits until `step` has entered and parked: waiting, with no command (nothing for a worker to hold). */
async function parkedAt(client: NoetlHttpClient, id: string, step: string): Promise<void> {
  await client.waitForDetail(
    id,
    (detail) => detail.steps.some((s) => s.step === step && s.status === 'WAITING'),
    15_000,
    `step ${step} parked`,
  );
  expect(ofType(await client.events(id), EventType.CommandIssued).filter((e) => e.step === step)).toEqual([]);
}

describe('signals and the wait tool over the REST API', () => {
  let app: E2eApp;

  beforeAll(async () => {
    app = await startE2eApp();
    for (const name of ['approval', 'approval-timeout', 'signals-early']) await app.client.register(e2ePlaybook(name));
  });

  afterAll(async () => {
    await app?.close();
  });

  it('parks an approval step with no command, then finishes with the signal as its result', async () => {
    const id = await app.client.execute('e2e/approval');
    await parkedAt(app.client, id, 'approve');
    // A signal whose payload the step's `when` does not admit is kept, and the step waits on.
    expect((await app.client.signal(id, 'approval', { order: 8, approved: true })).status).toBe(202);
    const accepted = await app.client.signal(id, 'approval', { order: 7, approved: true, by: 'ada' });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ execution_id: id, signal: 'approval', event_id: expect.stringMatching(/^\d+$/) });

    const detail = await app.client.waitForTerminal(id);
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { shipped: 7, approved_by: 'ada' } });
    const events = await app.client.events(id);
    const exit = ofType(events, EventType.StepExit).find((e) => e.step === 'approve');
    expect(exit?.payload).toMatchObject({
      result: { order: 7, approved: true, by: 'ada' },
      signal: { name: 'approval', event_id: accepted.body.event_id },
    });
    expect(ofType(events, EventType.SignalReceived)).toHaveLength(2);
  });

  it('routes a rejection to the other arc', async () => {
    const id = await app.client.execute('e2e/approval', { order: 9 });
    await parkedAt(app.client, id, 'approve');
    await app.client.signal(id, 'approval', { order: 9, approved: false }).expect(202);
    expect(await app.client.waitForTerminal(id)).toMatchObject({ status: 'COMPLETED', result: { rejected: 9 } });
  });

  it('keeps signals sent before the wait and hands them out in order', async () => {
    const id = await app.client.execute('e2e/signals_early');
    await parkedAt(app.client, id, 'gate');
    await app.client.signal(id, 'approval', { n: 1 }).expect(202);
    await app.client.signal(id, 'approval', { n: 2 }).expect(202);
    await app.client.signal(id, 'go').expect(202);

    const detail = await app.client.waitForTerminal(id);
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { first: 1, second: 2 } });
    const events = await app.client.events(id);
    expect(ofType(events, EventType.CommandIssued).map((e) => e.step)).toEqual(['summary']);
  });

  it('times a wait out into an error arc', async () => {
    const id = await app.client.execute('e2e/approval_timeout');
    const detail = await app.client.waitForTerminal(id);
    expect(detail).toMatchObject({
      status: 'COMPLETED',
      result: { escalated: true, reason: expect.stringContaining('no signal "approval" arrived by') },
    });
    expect(detail.steps.map((s) => [s.step, s.status])).toEqual([
      ['approve', 'COMPLETED'],
      ['escalate', 'COMPLETED'],
    ]);
    const events = await app.client.events(id);
    expect(ofType(events, EventType.TimerFired).map((e) => e.payload)).toEqual([expect.objectContaining({ purpose: 'wait' })]);
  });

  it('delivers a signal once per idempotency key', async () => {
    const id = await app.client.execute('e2e/signals_early');
    await parkedAt(app.client, id, 'gate');
    const first = await app.client.signal(id, 'approval', { n: 1 }, 'reviewer-1').expect(202);
    const again = await app.client.signal(id, 'approval', { n: 1 }, 'reviewer-1').expect(202);
    expect(again.body.event_id).toBe(first.body.event_id);
    expect(ofType(await app.client.events(id), EventType.SignalReceived)).toHaveLength(1);
    await app.client.cancel(id).expect(202);
  });

  it('answers 409 to a signal for a finished execution, 404 for an unknown one and 400 for a bad name', async () => {
    const id = await app.client.execute('e2e/approval_timeout');
    await app.client.waitForTerminal(id);
    const late = await app.client.signal(id, 'approval', { approved: true });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ code: 'already_terminal' });
    expect(ofType(await app.client.events(id), EventType.SignalReceived)).toEqual([]);

    const unknown = await app.client.signal('123456789', 'approval');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'not_found' });
    const bad = await app.client.signal(id, 'has space');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_request' });
    const big = await app.client.signal(id, 'approval', { text: 'x'.repeat(70_000) });
    expect(big.status).toBe(422);
    expect(big.body).toMatchObject({ code: 'invalid_payload' });
  });
});

describe('an approval across a crash of noetl server', () => {
  let database: TestDatabase;
  let server: CliServerProcess | undefined;

  const boot = async (): Promise<NoetlHttpClient> => {
    server = await startCliServer({ DATABASE_URL: database.url, NOETL_LEASE_SECONDS: '2', NOETL_SWEEP_MS: '200', LOG_LEVEL: 'warn' });
    return new NoetlHttpClient(server.url, server.apiKey);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('waits through a SIGKILL and a restart, and finishes when signalled', async () => {
    let client = await boot();
    await client.register(e2ePlaybook('approval'));
    const id = await client.execute('e2e/approval');
    await parkedAt(client, id, 'approve');

    await server!.crash();
    client = await boot();
    expect((await client.detail(id)).status).toBe('RUNNING');
    await client.signal(id, 'approval', { order: 7, approved: true, by: 'grace' }).expect(202);

    const detail = await client.waitForTerminal(id, 30_000);
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { shipped: 7, approved_by: 'grace' } });
    const events = await client.events(id);
    expect(terminalEvents(events).map((e) => e.event_type)).toEqual([EventType.ExecutionCompleted]);
    expect(ofType(events, EventType.StepExit).map((e) => e.step)).toEqual(['prepare', 'approve', 'ship']);
  });
});
