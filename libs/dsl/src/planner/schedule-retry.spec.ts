import { EventType } from '@noetl/event-kernel';
import { DEFAULT_UNIFIED_BACKOFF, nextRetryDelayMs } from '../policy';
import { callErrorOf } from './schedule-retry';
import { PlannerHarness, seededRandom, workflow } from './testing/planner-harness';

const serverError = { kind: 'server_error', message: 'boom', retryable: true, status: 503 };

const retrying = workflow(`
  - step: fetch
    tool: { kind: http, url: "http://x" }
    retry:
      - when: "{{ error.retryable }}"
        then: { max_attempts: 3, initial_delay: 1, backoff_multiplier: 2, max_delay: 60, jitter: true }
    next: [end]
  - step: end
`);

describe('onCommandFailed', () => {
  it('schedules a retry with backoff and jitter: due_at = now + delay', () => {
    const h = new PlannerHarness(retrying, { random: seededRandom(7) }).start();
    const failed = h.command('fetch');
    h.fail('fetch', serverError);
    const [scheduled] = h.ofType(EventType.RetryScheduled);
    const backoff = { strategy: 'exponential' as const, delaySeconds: 1, multiplier: 2, maxDelaySeconds: 60, jitter: true };
    const expected = nextRetryDelayMs(backoff, 1, seededRandom(7));
    expect(scheduled?.payload).toEqual({
      step: 'fetch',
      run_id: failed.runId,
      failed_command_id: failed.commandId,
      attempt: 2,
      due_at: new Date(h.now.getTime() + expected).toISOString(),
      delay_ms: expected,
      timer_id: expect.any(String),
      error: serverError,
    });
    expect(expected).toBeGreaterThanOrEqual(500);
    expect(expected).toBeLessThan(1500);
    expect(h.state.status).toBe('RUNNING');
  });

  it('issues the next attempt when the retry timer fires, and completes on success', () => {
    const h = new PlannerHarness(retrying).start();
    h.fail('fetch', serverError);
    expect(h.openCommands()).toEqual([]);
    h.fireTimers();
    const retry = h.command('fetch');
    expect(retry).toMatchObject({ attempt: 2, maxAttempts: 4, runId: h.ofType(EventType.StepEnter)[0]!.payload.run_id });
    expect(h.ofType(EventType.CommandIssued)[1]?.payload.spec).toEqual(h.ofType(EventType.CommandIssued)[0]?.payload.spec);
    h.complete('fetch', { ok: true });
    expect(h.state.status).toBe('COMPLETED');
  });

  it('fails the execution with {step, kind, message} when the retries are exhausted', () => {
    const h = new PlannerHarness(retrying).start();
    for (let attempt = 1; attempt < 3; attempt += 1) {
      h.fail('fetch', serverError);
      h.fireTimers();
    }
    h.fail('fetch', serverError);
    expect(h.ofType(EventType.RetryScheduled)).toHaveLength(2);
    expect(h.ofType(EventType.CommandIssued).map((e) => e.payload.attempt)).toEqual([1, 2, 3]);
    const exit = h.ofType(EventType.StepExit)[0]!;
    expect(exit.payload).toMatchObject({ status: 'FAILED', error: { kind: 'server_error', step: 'fetch', status: 503 } });
    expect(h.ofType(EventType.ExecutionFailed)[0]?.payload.error).toEqual({
      step: 'fetch',
      kind: 'server_error',
      message: 'retry attempts exhausted (3 of 3): boom',
    });
    expect(h.types().at(-1)).toBe(EventType.ExecutionFailed);
  });

  it('fails at once on an error no policy handles, and cancels the other open commands', () => {
    const playbook = workflow(`
  - step: start
    next: { spec: { mode: inclusive }, arcs: [{ step: a }, { step: b }] }
  - step: a
    tool: { kind: http, url: "http://x" }
  - step: b
    tool: { kind: http, url: "http://y" }
`);
    const h = new PlannerHarness(playbook).start();
    const other = h.command('b');
    const failed = h.fail('a', { kind: 'not_found', message: 'no such thing', status: 404 });
    expect(h.batches.get(failed.event_id)!.map((d) => d.type)).toEqual([
      EventType.StepExit,
      EventType.ExecutionFailed,
      EventType.CommandCancelled,
    ]);
    expect(h.state.commands[other.commandId]?.status).toBe('CANCELLED');
    expect(h.state.error).toEqual({ step: 'a', kind: 'not_found', message: 'no such thing' });
  });

  it('says no policy handled the error when policies exist but none matched', () => {
    const h = new PlannerHarness(retrying).start();
    h.fail('fetch', { kind: 'client_error', message: 'bad request', retryable: false });
    expect(h.state.error?.message).toBe('no policy handled the error: bad request');
  });

  it('retries `retry: true` on any error with the default unified backoff', () => {
    const playbook = workflow(`
  - step: fetch
    tool: { kind: http, url: "http://x" }
    retry: true
`);
    const h = new PlannerHarness(playbook, { random: seededRandom(3) }).start();
    h.fail('fetch', { kind: 'weird_kind', message: 'odd' });
    const scheduled = h.ofType(EventType.RetryScheduled)[0]!;
    expect(scheduled.payload.delay_ms).toBe(nextRetryDelayMs(DEFAULT_UNIFIED_BACKOFF, 1, seededRandom(3)));
  });

  it('lets a policy that continues complete the step with the error as its result, and routes on output.status', () => {
    const playbook = workflow(`
  - step: fetch
    tool: { kind: http, url: "http://x" }
    retry:
      - when: "{{ error.status == 404 }}"
        then: { do: continue, set: { ctx.missing: true } }
    next:
      - step: missing
        when: "{{ output.status == 'error' and fetch.error.status == 404 }}"
      - step: found
  - step: missing
  - step: found
`);
    const h = new PlannerHarness(playbook).start();
    const failed = h.fail('fetch', { kind: 'not_found', message: 'gone', status: 404 });
    expect(h.batches.get(failed.event_id)![0]).toMatchObject({ type: EventType.CtxUpdated, payload: { set: { missing: true } } });
    expect(h.ofType(EventType.StepExit)[0]?.payload).toMatchObject({
      status: 'COMPLETED',
      result: { status: 'error', error: { status: 404 } },
      next: ['missing'],
    });
    expect(h.state.status).toBe('COMPLETED');
  });

  it('fails the step when a policy chooses jump, which only a pipeline task can do', () => {
    const playbook = workflow(`
  - step: fetch
    tool: { kind: http, url: "http://x" }
    retry:
      - when: true
        then: { do: jump, to: fetch }
`);
    const h = new PlannerHarness(playbook).start();
    h.fail('fetch', serverError);
    expect(h.state.error?.message).toContain('chose jump');
  });

  it('fails the step with kind template when a policy condition does not render', () => {
    const playbook = workflow(`
  - step: fetch
    tool: { kind: http, url: "http://x" }
    retry:
      - when: "{{ error.nope() }}"
        then: { max_attempts: 2 }
`);
    const h = new PlannerHarness(playbook).start();
    h.fail('fetch', serverError);
    expect(h.state.error).toMatchObject({ kind: 'template', expression: '{{ error.nope() }}' });
  });

  it('records the worker ctx writes of a failed command first', () => {
    const h = new PlannerHarness(retrying).start();
    const failed = h.fail('fetch', serverError, { ctx: { tries: 1 } });
    expect(h.batches.get(failed.event_id)![0]).toMatchObject({ type: EventType.CtxUpdated, payload: { set: { tries: 1 } } });
  });

  it('ignores a failure of a run that already ended', () => {
    const h = new PlannerHarness(retrying).start();
    const command = h.command('fetch');
    h.complete('fetch');
    const late = h.append({
      type: EventType.CommandFailed,
      executionId: h.executionId,
      commandId: command.commandId,
      payload: { error: serverError },
    });
    expect(h.batches.get(late.event_id)).toEqual([]);
  });
});

describe('callErrorOf', () => {
  it('maps an event error to the policy error shape', () => {
    expect(
      callErrorOf({
        kind: 'rate_limit',
        message: 'slow down',
        retryable: true,
        status: 429,
        code: 'HTTP_429',
        retry_after_ms: 2000,
      } as never),
    ).toEqual({
      kind: 'rate_limit',
      message: 'slow down',
      retryable: true,
      status: 429,
      code: 'HTTP_429',
      retry_after_ms: 2000,
    });
    expect(callErrorOf({ kind: 'mystery', message: 'x' })).toEqual({ kind: 'internal', message: 'x', retryable: false });
  });
});
