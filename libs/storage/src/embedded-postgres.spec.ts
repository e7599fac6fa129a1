import { parsePostmasterPid } from './embedded-postgres';

describe('parsePostmasterPid', () => {
  it('reads the pid from line 1 and the port from line 4', () => {
    expect(parsePostmasterPid('4242\n/data\n1700000000\n54321\n\n127.0.0.1\n  5 1\nready   \n')).toEqual({ pid: 4242, port: 54321 });
  });

  it('reports a starting postmaster that has not written its port yet', () => {
    expect(parsePostmasterPid('4242\n/data\n')).toEqual({ pid: 4242 });
  });

  it('rejects a file without a pid', () => {
    expect(parsePostmasterPid('')).toBeUndefined();
    expect(parsePostmasterPid('garbage\n')).toBeUndefined();
  });
});
