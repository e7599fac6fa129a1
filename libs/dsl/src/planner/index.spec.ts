import * as planner from './index';

describe('planner public API', () => {
  it('exports the planner and its helpers', () => {
    expect(typeof planner.plan).toBe('function');
    expect(typeof planner.reachability).toBe('function');
    expect(typeof planner.canReach).toBe('function');
    expect(typeof planner.commandSpec).toBe('function');
    expect(typeof planner.executionResult).toBe('function');
    expect(typeof planner.isSettled).toBe('function');
    expect(planner.DEFAULT_COMMAND_MAX_ATTEMPTS).toBe(3);
  });
});
