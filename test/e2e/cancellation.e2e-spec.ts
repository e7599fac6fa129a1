import { EventType } from '@noetl/event-kernel';
import type { EventView } from '@noetl/runtime';
import { e2ePlaybook, startE2eApp, type E2eApp } from '../support/e2e-app';
import { enteredSteps, ofType, terminalEvents } from '../support/ledger-checks';
import { startScriptedHttpServer, type ScriptedHttpServer } from '../support/scripted-http-server';
import { waitFor } from '../support/wait-for';

// One app boot per file plus executions that wait on real timers and servers.
jest.setTimeout(30_000);

describe('cancellation over the REST API', () => {
  let app: E2eApp;
  let scripted: ScriptedHttpServer;

  beforeAll(async () => {
    [app, scripted] = await Promise.all([startE2eApp(), startScriptedHttpServer()]);
    for (const name of ['cancel-sleep', 'cancel-slow-call', 'child', 'parent']) await app.client.register(e2ePlaybook(name));
  });

  afterAll(async () => {
    await Promise.all([app?.close(), scripted?.close()]);
  });

  /**
   * Exactly one terminal event, execution.cancelled; what follows it, if
   * anything, is only the cancellation of the commands it left open.
   */
  function expectCancelledLedger(events: EventView[]): void {
    expect(terminalEvents(events).map((e) => e.event_type)).toEqual([EventType.ExecutionCancelled]);
    const after = events.slice(events.findIndex((e) => e.event_type === EventType.ExecutionCancelled) + 1);
    expect(after.map((e) => e.event_type).filter((type) => type !== EventType.CommandCancelled)).toEqual([]);
  }

  it('cancels an execution waiting on a durable sleep: 202, CANCELLED, and the step after the sleep never runs', async () => {
    const id = await app.client.execute('e2e/cancel_sleep');
    await app.client.waitForEvent(id, EventType.TimerScheduled);

    const res = await app.client.cancel(id, 'e2e: stop the nap').expect(202);
    expect(res.body).toMatchObject({ execution_id: id, status: 'CANCELLED' });

    const detail = await app.client.waitForTerminal(id);
    expect(detail.status).toBe('CANCELLED');
    const events = await app.client.events(id);
    expectCancelledLedger(events);
    expect(ofType(events, EventType.ExecutionCancelled)[0]?.payload).toMatchObject({ reason: 'e2e: stop the nap' });
    expect(enteredSteps(events)).toEqual(['nap']);
    expect(ofType(events, EventType.TimerFired)).toEqual([]);
  });

  it('cancels an execution whose command a worker is running: the command ends command.cancelled, never completed', async () => {
    const id = await app.client.execute('e2e/cancel_slow_call', { echo: scripted.url });
    const started = await app.client.waitForEvent(id, EventType.CommandClaimed);

    await app.client.cancel(id).expect(202);

    const detail = await app.client.waitForTerminal(id);
    expect(detail.status).toBe('CANCELLED');
    const cancelled = await app.client.waitForEvent(id, EventType.CommandCancelled);
    expect(cancelled.command_id).toBe(started.command_id);
    const events = await app.client.events(id);
    expectCancelledLedger(events);
    const commandEnds = events.filter(
      (e) => e.command_id === started.command_id && [EventType.CommandCompleted, EventType.CommandFailed].includes(e.event_type as never),
    );
    expect(commandEnds).toEqual([]);
    expect(enteredSteps(events)).toEqual(['slow']);
  });

  it('cancelling a parent cancels its running child execution', async () => {
    const parentId = await app.client.execute('e2e/parent', { nap_seconds: 60 });
    const child = await waitFor(async () => (await app.client.children(parentId))[0], {
      timeoutMs: 10_000,
      description: 'the child execution',
    });
    await app.client.waitForEvent(child.execution_id, EventType.TimerScheduled);

    await app.client.cancel(parentId).expect(202);

    expect((await app.client.waitForTerminal(parentId)).status).toBe('CANCELLED');
    expect((await app.client.waitForTerminal(child.execution_id)).status).toBe('CANCELLED');
    expectCancelledLedger(await app.client.events(parentId));
    expectCancelledLedger(await app.client.events(child.execution_id));
  });
});
