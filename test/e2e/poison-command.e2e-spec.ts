import { EventType } from '@noetl/event-kernel';
import type { EventView } from '@noetl/runtime';
import { startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { e2ePlaybook } from '../support/e2e-app';
import { ofType } from '../support/ledger-checks';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { startScriptedHttpServer, type ScriptedHttpServer } from '../support/scripted-http-server';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

// Three server boots and two lease expiries.
jest.setTimeout(120_000);

/**
 * Issue 15 defect 3, second half: a command whose run takes its process
 * down (here the spec SIGKILLs `noetl server` while the step runs, as the
 * kernel's OOM killer would) was run again after every restart until its
 * attempts ran out, killing a server each time. Now the first death sends
 * the command back to run alone on its worker; a second death there fails
 * the step as a suspected poison, and no third process dies. A command that
 * was only beside it when the process died runs alone once and completes.
 */
describe('a command that keeps killing its worker process', () => {
  let database: TestDatabase;
  let scripted: ScriptedHttpServer;
  let server: CliServerProcess | undefined;

  const boot = async (): Promise<NoetlHttpClient> => {
    server = await startCliServer({ DATABASE_URL: database.url, NOETL_LEASE_SECONDS: '2', NOETL_SWEEP_MS: '200', LOG_LEVEL: 'warn' });
    return new NoetlHttpClient(server.url, server.apiKey);
  };
  const started = (events: EventView[]): EventView[] => ofType(events, EventType.CommandClaimed).filter((event) => event.step === 'doomed');

  beforeAll(async () => {
    [database, scripted] = await Promise.all([createTestDatabase(), startScriptedHttpServer()]);
  });

  afterAll(async () => {
    await server?.stop();
    await Promise.all([database?.drop(), scripted?.close()]);
  });

  it('fails the step as suspected poison after its second death, and the command beside it completes', async () => {
    let client = await boot();
    await client.register(e2ePlaybook('crash-poison'));
    const poison = await client.execute('e2e/crash_poison', { echo: scripted.url, ms: 60_000 });
    const bystander = await client.execute('e2e/crash_poison', { echo: scripted.url, ms: 3_000 });
    await Promise.all(
      [poison, bystander].map((id) => client.waitForEvent(id, EventType.CommandClaimed, (event) => event.step === 'doomed')),
    );

    // First death: both commands were running.
    await server!.crash();
    client = await boot();
    const restarted = client;
    await waitFor(async () => started(await restarted.events(poison, [EventType.CommandClaimed])).length === 2, {
      timeoutMs: 30_000,
      intervalMs: 50,
      description: "the poison command's second attempt to start",
    });

    // Second death: the poison command ran alone.
    await server!.crash();
    client = await boot();

    const failed = await client.waitForTerminal(poison, 30_000);
    expect(failed).toMatchObject({ status: 'FAILED', error: { step: 'doomed', kind: 'internal' } });
    expect(failed.error?.message).toContain('suspected poison');
    const events = await client.events(poison);
    const issued = ofType(events, EventType.CommandIssued).filter((event) => event.step === 'doomed');
    expect(issued.map((event) => (event.payload as { attempt: number }).attempt)).toEqual([1, 2]);
    expect((issued[1]!.payload as { spec: Record<string, unknown> }).spec['run_alone']).toBe(true);
    expect(started(events)).toHaveLength(2);
    expect(ofType(events, EventType.CommandAbandoned).map((event) => event.payload)).toEqual([
      expect.objectContaining({ attempt: 1, worker_lost: true }),
      expect.objectContaining({ attempt: 2, worker_lost: true }),
    ]);
    expect(ofType(events, EventType.StepExit).find((event) => event.step === 'doomed')?.payload).toMatchObject({
      status: 'FAILED',
      error: { code: 'suspected_poison' },
    });

    const completed = await client.waitForTerminal(bystander, 30_000);
    expect(completed).toMatchObject({ status: 'COMPLETED' });
    const beside = ofType(await client.events(bystander), EventType.CommandIssued).filter((event) => event.step === 'doomed');
    expect(beside.map((event) => (event.payload as { spec: Record<string, unknown> }).spec['run_alone'] === true)).toEqual([false, true]);
  });
});
