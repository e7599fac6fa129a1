import type { ExecutionDetail } from '../executions/execution-types';
import { childOutcome } from './child-outcome';

function detail(overrides: Partial<ExecutionDetail>): ExecutionDetail {
  return {
    execution_id: '7',
    parent_execution_id: '1',
    path: 'child',
    version: 1,
    status: 'COMPLETED',
    started_at: '2026-01-01T00:00:00.000Z',
    completed_at: '2026-01-01T00:00:01.000Z',
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

describe('childOutcome', () => {
  it("gives the child's result with status, execution_id and path merged over it", () => {
    expect(childOutcome({ detail: detail({ result: { doubled: 42 } }) })).toEqual({
      status: 'COMPLETED',
      result: { doubled: 42, status: 'COMPLETED', execution_id: '7', path: 'child' },
    });
  });

  it("gives the return_step's result when one is named, and a non-mapping under `result`", () => {
    expect(childOutcome({ detail: detail({ result: { x: 1 } }), returnStep: 'end', stepResult: [1, 2] })).toEqual({
      status: 'COMPLETED',
      result: { status: 'COMPLETED', execution_id: '7', path: 'child', result: [1, 2] },
    });
  });

  it('fails the command when the child did not complete, saying why', () => {
    const outcome = childOutcome({
      detail: detail({ status: 'FAILED', error: { step: 'load', kind: 'http', message: 'HTTP 500' } }),
    });
    expect(outcome).toEqual({
      status: 'FAILED',
      error: { kind: 'child_failed', message: 'child execution 7 (child) ended FAILED: HTTP 500', retryable: false, step: 'load' },
    });
  });
});
