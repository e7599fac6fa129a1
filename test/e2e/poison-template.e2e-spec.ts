import { EventType } from '@noetl/event-kernel';
import { startCliServer, type CliServerProcess } from '../support/cli-server-process';
import { e2ePlaybook } from '../support/e2e-app';
import { enteredSteps, ofType } from '../support/ledger-checks';
import { NoetlHttpClient } from '../support/noetl-http-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// One server boot and a few short executions.
jest.setTimeout(60_000);

/**
 * Issue 15 defect 3: a template that doubles a 100,000-item list 40 times
 * reached V8's array limit, which aborts the process ("invalid size"), so the
 * server died and, restarted, ran the same command into the same death. The
 * built `noetl server` runs it here as a separate process: the step fails
 * with a template budget error, whether the worker or the scheduler renders
 * it, and the same process keeps answering and running executions.
 */
describe('a poison template against noetl server', () => {
  let database: TestDatabase;
  let server: CliServerProcess;
  let client: NoetlHttpClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startCliServer({ DATABASE_URL: database.url, NOETL_SWEEP_MS: '200', LOG_LEVEL: 'warn' });
    client = new NoetlHttpClient(server.url, server.apiKey);
    await Promise.all([client.register(e2ePlaybook('poison-template')), client.register(e2ePlaybook('linear'))]);
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it.each([
    ['worker_side', 'a tool input the worker renders'],
    ['scheduler_side', 'a step-level set the scheduler renders'],
  ])('fails the step in %s (%s) with a budget error, and the server keeps answering', async (step) => {
    const id = await client.execute('e2e/poison_template', { where: step });
    const detail = await client.waitForTerminal(id, 30_000);

    expect(detail).toMatchObject({ status: 'FAILED', error: { step, kind: 'template' } });
    expect(detail.error?.message).toContain('over budget: a list of 1600000 items is too long (limit 1000000, maxListLength)');
    const events = await client.events(id);
    expect(ofType(events, EventType.StepExit).find((e) => e.step === step)?.payload).toMatchObject({
      status: 'FAILED',
      error: { kind: 'template', expression: expect.stringContaining('set l = l + l'), message: expect.stringContaining('maxListLength') },
    });
    expect(enteredSteps(events)).not.toContain('after');

    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
    const after = await client.waitForTerminal(await client.execute('e2e/linear'), 30_000);
    expect(after).toMatchObject({ status: 'COMPLETED', result: { n: 25 } });
    expect(server.output()).not.toMatch(/invalid size|FATAL|heap out of memory/i);
  });
});
