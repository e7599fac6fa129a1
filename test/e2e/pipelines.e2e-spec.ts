import { EventType } from '@noetl/event-kernel';
import { e2ePlaybook, startE2eApp, type E2eApp } from '../support/e2e-app';
import { callsOf, enteredSteps, ofType, terminalEvents } from '../support/ledger-checks';
import { startScriptedHttpServer, type ScriptedHttpServer } from '../support/scripted-http-server';

// One app boot per file plus executions that wait on real timers and servers.
jest.setTimeout(30_000);

describe('pipelines and their task policies over the REST API', () => {
  let app: E2eApp;
  let scripted: ScriptedHttpServer;

  beforeAll(async () => {
    [app, scripted] = await Promise.all([startE2eApp(), startScriptedHttpServer()]);
  });

  afterAll(async () => {
    await Promise.all([app?.close(), scripted?.close()]);
  });

  it('retries a task in place, jumps back, breaks early and continues past a swallowed error, each step as one command', async () => {
    const detail = await app.client.run(e2ePlaybook('pipeline-policies'), { echo: scripted.url, key: 'pipeline-retry' });

    expect(detail.status).toBe('COMPLETED');
    expect(detail.result).toEqual({
      calls_seen: 3,
      final: 3,
      marker: 'checked',
      skipped_ran: false,
      recovered: true,
      prev_status: 'error',
    });
    expect(scripted.calls('pipeline-retry')).toBe(3);
    const events = await app.client.events(detail.execution_id);
    const pipelineSteps = ['retry_task', 'jump_back', 'break_early', 'continue_on_error'];
    // Task policies run on the worker: one command per step, no durable retry.
    expect(ofType(events, EventType.CommandIssued).map((e) => e.step)).toEqual([...pipelineSteps, 'summary']);
    expect(ofType(events, EventType.RetryScheduled)).toEqual([]);
    expect(detail.steps.map((s) => [s.step, s.status, s.attempts])).toEqual([...pipelineSteps, 'summary'].map((s) => [s, 'COMPLETED', 1]));
    const exits = Object.fromEntries(
      ofType(events, EventType.StepExit).map((e) => [e.step, e.payload as { result: Record<string, unknown> }]),
    );
    expect(exits.retry_task?.result).toMatchObject({ fetch: { status_code: 200, data: { calls: 3 } }, after_fetch: { calls_seen: 3 } });
    expect(exits.break_early?.result).not.toHaveProperty('skipped');
    expect(exits.continue_on_error?.result).toMatchObject({
      recover: { recovered: true, message: expect.stringContaining('broken on purpose') },
    });
  });

  it('fails the step, and so the execution, when a task policy says fail; later tasks and steps never run', async () => {
    const detail = await app.client.run(e2ePlaybook('pipeline-fail'));

    expect(detail).toMatchObject({ status: 'FAILED', error: { step: 'guarded' } });
    expect(detail.steps).toEqual([expect.objectContaining({ step: 'guarded', status: 'FAILED', attempts: 1 })]);
    const events = await app.client.events(detail.execution_id);
    expect(enteredSteps(events)).toEqual(['guarded']);
    expect(ofType(events, EventType.CommandFailed)).toHaveLength(1);
    const tasks = callsOf(events).map((call) => call.task);
    expect(tasks.length).toBeGreaterThan(0);
    expect(tasks).not.toContain('publish');
    expect(terminalEvents(events).map((e) => e.event_type)).toEqual([EventType.ExecutionFailed]);
  });
});
