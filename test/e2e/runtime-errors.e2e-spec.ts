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
    await app.client.register(e2ePlaybook('unstorable-results'));
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

  it('fails a step whose result holds U+0000 at once, for good, saying where (the ledger cannot store it)', async () => {
    const id = await app.client.execute('e2e/unstorable_results', { where: 'result' });
    const detail = await app.client.waitForTerminal(id);

    expect(detail).toMatchObject({
      status: 'FAILED',
      error: { step: 'nul_result', kind: 'unstorable_result', message: expect.stringContaining('result.rows[0].v holds a NUL character') },
    });
    const events = await app.client.events(id);
    expect(ofType(events, EventType.CommandIssued).filter((e) => e.step === 'nul_result')).toHaveLength(1);
    expect(enteredSteps(events)).not.toContain('after');
  });

  it('records an error message holding U+0000 with the character escaped', async () => {
    const id = await app.client.execute('e2e/unstorable_results', { where: 'error' });
    const detail = await app.client.waitForTerminal(id);

    expect(detail).toMatchObject({ status: 'FAILED', error: { step: 'nul_error', message: expect.stringContaining('bad\\u0000byte') } });
  });

  it('fails the loop row whose result holds U+0000, and lands the others', async () => {
    const id = await app.client.execute('e2e/unstorable_results', { where: 'loop' });
    const detail = await app.client.waitForTerminal(id);

    expect(detail).toMatchObject({
      status: 'FAILED',
      error: { step: 'nul_row', message: expect.stringContaining('[1] unstorable_result: result (row 1) holds a NUL character') },
    });
    const done = ofType(await app.client.events(id), EventType.LoopDone)[0];
    expect(done?.payload).toMatchObject({ status: 'partial', succeeded: 2, failed: 1, results: [1, null, 3] });
  });
});
