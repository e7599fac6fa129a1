import { EventType } from '@noetl/event-kernel';
import type { EventView } from '@noetl/runtime';
import { startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { e2ePlaybook } from '../support/e2e-app';
import { commandsWithRepeated, ofType, terminalEvents } from '../support/ledger-checks';
import { NoetlHttpClient, describeEvents } from '../support/noetl-http-client';
import { startScriptedHttpServer, type ScriptedHttpServer } from '../support/scripted-http-server';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// Two server boots and a lease expiry per case.
jest.setTimeout(90_000);

/**
 * Durability (DESIGN.md s1, s2 invariants 3-5): the built `noetl server` is
 * killed with SIGKILL while an execution is mid-way, restarted on the same
 * database, and must finish the execution exactly once.
 */
describe('crash safety of noetl server', () => {
  let database: TestDatabase;
  let scripted: ScriptedHttpServer;
  let server: CliServerProcess | undefined;

  const boot = async (): Promise<NoetlHttpClient> => {
    server = await startCliServer({
      DATABASE_URL: database.url,
      NOETL_LEASE_SECONDS: '2',
      NOETL_SWEEP_MS: '200',
      LOG_LEVEL: 'warn',
    });
    return new NoetlHttpClient(server.url, server.apiKey);
  };

  beforeAll(async () => {
    [database, scripted] = await Promise.all([createTestDatabase(), startScriptedHttpServer()]);
  });

  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  afterAll(async () => {
    await Promise.all([database?.drop(), scripted?.close()]);
  });

  /** One terminal event, last in the ledger; no command completed twice; no step left twice. */
  function expectExactlyOnce(events: EventView[]): void {
    const summary = describeEvents(events);
    expect({ terminal: terminalEvents(events).map((e) => e.event_type), summary }).toEqual({
      terminal: [EventType.ExecutionCompleted],
      summary,
    });
    expect(events.at(-1)?.event_type).toBe(EventType.ExecutionCompleted);
    expect(commandsWithRepeated(events, EventType.CommandCompleted)).toEqual([]);
    const exits = ofType(events, EventType.StepExit).map((e) => e.step);
    expect(exits).toEqual([...new Set(exits)]);
  }

  it('finishes a chain of steps whose server was killed while a step ran, with no command completed twice', async () => {
    let client = await boot();
    await client.register(e2ePlaybook('crash-chain'));
    const id = await client.execute('e2e/crash_chain', { echo: scripted.url });
    const inFlight = await client.waitForEvent(id, EventType.CommandClaimed, (e) => e.step === 's3');

    await server!.crash();
    client = await boot();

    const detail = await client.waitForTerminal(id, 45_000);
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { total_ms: 1500 } });
    expect(detail.steps.map((s) => [s.step, s.status])).toEqual(['s1', 's2', 's3', 's4', 's5', 'total'].map((s) => [s, 'COMPLETED']));
    const events = await client.events(id);
    expectExactlyOnce(events);
    // The command the crash interrupted was abandoned when its lease ran out, then issued again.
    expect(ofType(events, EventType.CommandAbandoned).map((e) => e.command_id)).toContain(inFlight.command_id);
    expect(events.filter((e) => e.command_id === inFlight.command_id && e.event_type === EventType.CommandCompleted)).toEqual([]);
  });

  it('fires a retry whose server was killed during the retry delay, after the restart', async () => {
    let client = await boot();
    await client.register(e2ePlaybook('crash-retry'));
    const id = await client.execute('e2e/crash_retry', { echo: scripted.url, key: 'crash-retry' });
    await client.waitForEvent(id, EventType.RetryScheduled);

    await server!.crash();
    client = await boot();

    const detail = await client.waitForTerminal(id, 45_000);
    expect(detail).toMatchObject({ status: 'COMPLETED', result: { calls: 2 } });
    expect(scripted.calls('crash-retry')).toBe(2);
    const events = await client.events(id);
    expectExactlyOnce(events);
    expect(ofType(events, EventType.RetryScheduled)).toHaveLength(1);
    expect(ofType(events, EventType.TimerFired)).toHaveLength(1);
    expect(ofType(events, EventType.CommandIssued).filter((e) => e.step === 'call')).toHaveLength(2);
  });
});
