import { EventType } from '@noetl/event-kernel';
import type { CommandRow } from '@noetl/storage';
import { terminalDraft } from './command-outcome';

const command: CommandRow = {
  command_id: '11',
  execution_id: '7',
  step: 'fetch',
  run_id: '9',
  kind: 'http',
  attempt: 1,
  max_attempts: 3,
  status: 'RUNNING',
  spec: null,
  worker_id: 'w1',
  lease_until: null,
  lease_token: null,
  created_at: new Date(0),
  loop_id: null,
  iteration: null,
};

describe('terminalDraft', () => {
  it("lists the command's calls in its command.completed, where each was a call.done of its own", () => {
    const calls = [
      { task: 'list', attempts: 2, duration_ms: 30, status: 'ok' as const },
      { task: 'post', attempts: 1, duration_ms: 5, status: 'ok' as const },
    ];
    const draft = terminalDraft(command, { status: 'COMPLETED', result: { n: 1 }, calls, durationMs: 40 }, { result: { n: 1 } });
    expect(draft).toMatchObject({
      type: EventType.CommandCompleted,
      executionId: '7',
      step: 'fetch',
      commandId: '11',
      payload: { result: { n: 1 }, duration_ms: 40, calls },
    });
  });

  it('lists the failing call with its error in command.failed', () => {
    const error = { kind: 'http', message: 'HTTP 503' };
    const calls = [{ task: 'post', attempts: 3, duration_ms: 90, status: 'error' as const, error }];
    const draft = terminalDraft(command, { status: 'FAILED', error, calls }, undefined);
    expect(draft).toMatchObject({ type: EventType.CommandFailed, payload: { error, calls } });
  });

  it('writes no calls member for a command that reported none', () => {
    expect(terminalDraft(command, { status: 'COMPLETED', result: null }, { result: null }).payload).not.toHaveProperty('calls');
  });
});
