import { descendantsOf, parseProcStat } from './kill-process-tree';

describe('parseProcStat', () => {
  it('reads pid, state and ppid, whatever the command name holds', () => {
    expect(parseProcStat('4242 (sleep) S 4200 4242 4242 0 -1 4194304 87 0 0 0')).toEqual({ pid: 4242, state: 'S', ppid: 4200 });
    expect(parseProcStat('7 (we ird) (name)) Z 1 7 7 0')).toEqual({ pid: 7, state: 'Z', ppid: 1 });
    expect(parseProcStat('garbage')).toBeUndefined();
  });
});

describe('descendantsOf', () => {
  it('walks the whole subtree, skipping zombies but not their children', () => {
    const stats = [
      { pid: 10, ppid: 1, state: 'S' },
      { pid: 11, ppid: 10, state: 'S' },
      { pid: 12, ppid: 10, state: 'Z' },
      { pid: 13, ppid: 12, state: 'R' },
      { pid: 14, ppid: 11, state: 'S' },
      { pid: 20, ppid: 1, state: 'S' },
    ];
    expect(descendantsOf(10, stats).sort()).toEqual([11, 13, 14]);
    expect(descendantsOf(99, stats)).toEqual([]);
  });
});
