import type { ExecutionDetail, StepView } from '@noetl/runtime';
import { formatExecutionError, formatFinishedStep, formatOutcome, newlyFinishedSteps, summariseProgress } from './execution-progress';

const t0 = '2026-01-01T00:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(t0) + ms).toISOString();

function step(name: string, status: StepView['status'], durationMs?: number, attempts = 1, startMs = 0): StepView {
  return {
    step: name,
    status,
    attempts,
    started_at: at(startMs),
    completed_at: durationMs === undefined ? null : at(startMs + durationMs),
  };
}

function detail(overrides: Partial<ExecutionDetail>): ExecutionDetail {
  return {
    execution_id: '42',
    parent_execution_id: null,
    path: 'examples/hello',
    version: 1,
    status: 'RUNNING',
    started_at: t0,
    completed_at: null,
    workload: {},
    result: null,
    error: null,
    steps: [],
    loops: [],
    schedule: null,
    rerun_of: null,
    reruns: [],
    ...overrides,
  };
}

describe('summariseProgress', () => {
  it('counts finished and seen step runs and names the running ones, with their loop progress', () => {
    const summary = summariseProgress(
      detail({
        steps: [step('start', 'COMPLETED', 5), step('fetch', 'FAILED', 9), step('score', 'RUNNING'), step('notify', 'RUNNING')],
        loops: [
          { step: 'score', loop_id: '7', total: 10, done: 3, failed: 1, completed: false },
          { step: 'fetch', loop_id: '6', total: 2, done: 2, failed: 0, completed: true },
        ],
      }),
    );
    expect(summary).toEqual({ done: 2, seen: 4, current: 'score 3/10 (1 failed), notify' });
  });

  it('counts pending and waiting step runs as not finished', () => {
    const summary = summariseProgress(
      detail({
        steps: [step('start', 'COMPLETED', 5), step('fetch', 'PENDING'), step('approve', 'WAITING'), step('stop', 'CANCELLED', 1)],
      }),
    );
    expect(summary).toEqual({ done: 2, seen: 4, current: 'fetch, approve' });
  });

  it('shows ? for a loop whose size is not known yet (a cursor loop)', () => {
    const summary = summariseProgress(
      detail({
        steps: [step('drain', 'RUNNING')],
        loops: [{ step: 'drain', loop_id: '1', total: null, done: 4, failed: 0, completed: false }],
      }),
    );
    expect(summary.current).toBe('drain 4/?');
  });
});

describe('newlyFinishedSteps', () => {
  it('returns each finished step run once, and a loop-back re-run again', () => {
    const reported = new Set<string>();
    const first = detail({ steps: [step('a', 'COMPLETED', 1), step('b', 'RUNNING', undefined, 1, 2)] });
    expect(newlyFinishedSteps(first, reported).map((s) => s.step)).toEqual(['a']);
    const second = detail({ steps: [step('a', 'COMPLETED', 1), step('b', 'COMPLETED', 3, 1, 2), step('a', 'COMPLETED', 1, 1, 10)] });
    expect(newlyFinishedSteps(second, reported).map((s) => `${s.step}@${s.started_at}`)).toEqual([`b@${at(2)}`, `a@${at(10)}`]);
    expect(newlyFinishedSteps(second, reported)).toEqual([]);
  });
});

describe('formatting', () => {
  it('describes a finished step with its attempts and duration', () => {
    expect(formatFinishedStep(step('greet', 'COMPLETED', 12))).toBe('✓ greet (12 ms)');
    expect(formatFinishedStep(step('fetch', 'FAILED', 2500, 3))).toBe('✗ fetch failed (3 attempts, 2.5 s)');
    expect(formatFinishedStep(step('approve', 'CANCELLED'))).toBe('✗ approve cancelled');
  });

  it('describes the outcome and the error of an execution', () => {
    const failed = detail({ status: 'FAILED', completed_at: at(1234), error: { step: 'check', kind: 'code', message: 'Error: boom' } });
    expect(formatOutcome(failed)).toBe('execution 42 (examples/hello v1) FAILED in 1.2 s');
    expect(formatExecutionError(failed)).toBe('step check failed (code): Error: boom');
    expect(formatExecutionError(detail({ status: 'COMPLETED' }))).toBeUndefined();
  });
});
