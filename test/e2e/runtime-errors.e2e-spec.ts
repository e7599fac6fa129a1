import { EventType } from '@noetl/event-kernel';
import { e2ePlaybook, startE2eApp, type E2eApp } from '../support/e2e-app';
import { enteredSteps, ofType, terminalEvents } from '../support/ledger-checks';

// One app boot per file plus executions that wait on real timers and servers.
jest.setTimeout(30_000);

describe('errors found at run time, over the REST API', () => {
  let app: E2eApp;

  beforeAll(async () => {
    app = await startE2eApp();
    await app.client.register(e2ePlaybook('template-errors'));
  });

  afterAll(async () => {
    await app?.close();
  });

  it.each([
    ['worker_side', 'a tool input the worker renders'],
    ['scheduler_side', 'a step-level set the scheduler renders'],
  ])('fails the execution on a template error in %s (%s), naming the message and the expression', async (step) => {
    const id = await app.client.execute('e2e/template_errors', { where: step });
    const detail = await app.client.waitForTerminal(id);

    expect(detail).toMatchObject({ status: 'FAILED', error: { step, kind: 'template', message: expect.any(String) } });
    const events = await app.client.events(id);
    expect(enteredSteps(events)).not.toContain('after');
    const exit = ofType(events, EventType.StepExit).find((e) => e.step === step);
    expect(exit?.payload).toMatchObject({
      status: 'FAILED',
      error: { kind: 'template', message: expect.any(String), expression: expect.stringContaining('fromjson') },
    });
    const failed = terminalEvents(events);
    expect(failed.map((e) => e.event_type)).toEqual([EventType.ExecutionFailed]);
    expect(failed[0]?.payload).toMatchObject({ error: { kind: 'template', expression: expect.stringContaining('fromjson') } });
  });
});
