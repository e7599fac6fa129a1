import { EventType } from '@noetl/event-kernel';
import type { EventView } from '@noetl/runtime';
import { e2ePlaybook, startE2eApp, type E2eApp } from '../support/e2e-app';
import { ofType, terminalEvents } from '../support/ledger-checks';
import { startScriptedHttpServer, type ScriptedHttpServer } from '../support/scripted-http-server';

// One app boot per file plus executions that wait on real timers and servers.
jest.setTimeout(30_000);

interface RetryScheduledPayload {
  attempt: number;
  due_at: string;
  delay_ms: number;
  failed_command_id: string;
  error: { status?: number };
}

describe('durable error retry with backoff over the REST API', () => {
  let app: E2eApp;
  let scripted: ScriptedHttpServer;

  beforeAll(async () => {
    [app, scripted] = await Promise.all([startE2eApp(), startScriptedHttpServer()]);
    await app.client.register(e2ePlaybook('retry-http'));
  });

  afterAll(async () => {
    await Promise.all([app?.close(), scripted?.close()]);
  });

  const commandIds = (events: EventView[]): (string | null)[] => ofType(events, EventType.CommandIssued).map((e) => e.command_id);

  it('schedules a retry per failure with growing due times, issues a new command per attempt, and completes', async () => {
    const id = await app.client.execute('e2e/retry_http', { echo: scripted.url, key: 'retry-ok', failures: 2 });
    const detail = await app.client.waitForTerminal(id);

    expect(detail).toMatchObject({ status: 'COMPLETED', result: { status_code: 200, data: { key: 'retry-ok', calls: 3 } } });
    expect(detail.steps).toEqual([expect.objectContaining({ step: 'call', status: 'COMPLETED', attempts: 3 })]);
    expect(scripted.calls('retry-ok')).toBe(3);
    const events = await app.client.events(id);
    const issued = commandIds(events);
    expect(issued).toHaveLength(3);
    expect(new Set(issued).size).toBe(3);
    expect(ofType(events, EventType.CommandIssued).map((e) => (e.payload as { attempt: number }).attempt)).toEqual([1, 2, 3]);

    const retries = ofType(events, EventType.RetryScheduled).map((e) => e.payload as unknown as RetryScheduledPayload);
    expect(retries.map((r) => [r.attempt, r.delay_ms, r.error.status])).toEqual([
      [2, 200, 503],
      [3, 400, 503],
    ]);
    expect(retries.map((r) => r.failed_command_id)).toEqual(issued.slice(0, 2));
    expect(Date.parse(retries[1]!.due_at)).toBeGreaterThan(Date.parse(retries[0]!.due_at));
    const failures = ofType(events, EventType.CommandFailed);
    expect(failures.map((e) => e.command_id)).toEqual(issued.slice(0, 2));
    // Each new attempt is issued no earlier than its retry's due time.
    const issuedAt = ofType(events, EventType.CommandIssued).map((e) => Date.parse(e.created_at));
    expect(issuedAt[1]).toBeGreaterThanOrEqual(Date.parse(retries[0]!.due_at));
    expect(issuedAt[2]).toBeGreaterThanOrEqual(Date.parse(retries[1]!.due_at));
    expect(ofType(events, EventType.TimerFired)).toHaveLength(2);
    expect(terminalEvents(events).map((e) => e.event_type)).toEqual([EventType.ExecutionCompleted]);
  });

  it('fails the execution once the attempts are exhausted', async () => {
    const id = await app.client.execute('e2e/retry_http', { echo: scripted.url, key: 'retry-exhausted', failures: 10 });
    const detail = await app.client.waitForTerminal(id);

    expect(detail).toMatchObject({ status: 'FAILED', error: { step: 'call', message: expect.any(String) } });
    expect(detail.steps).toEqual([expect.objectContaining({ step: 'call', status: 'FAILED', attempts: 3 })]);
    expect(scripted.calls('retry-exhausted')).toBe(3);
    const events = await app.client.events(id);
    expect(commandIds(events)).toHaveLength(3);
    expect(ofType(events, EventType.RetryScheduled)).toHaveLength(2);
    expect(ofType(events, EventType.CommandFailed)).toHaveLength(3);
    expect(terminalEvents(events).map((e) => e.event_type)).toEqual([EventType.ExecutionFailed]);
    expect(events.at(-1)?.event_type).toBe(EventType.ExecutionFailed);
  });
});
