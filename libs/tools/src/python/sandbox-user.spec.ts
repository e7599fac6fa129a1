import { findSandboxUser } from './sandbox-user';

const PASSWD = [
  'root:x:0:0:root:/root:/bin/bash',
  'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
  'app:x:1000:1001::/home/app:/bin/sh',
  'broken line',
  '',
].join('\n');

describe('findSandboxUser', () => {
  it('finds a user by name, with its primary group', () => {
    expect(findSandboxUser('nobody', PASSWD)).toEqual({ name: 'nobody', uid: 65534, gid: 65534 });
    expect(findSandboxUser(' app ', PASSWD)).toEqual({ name: 'app', uid: 1000, gid: 1001 });
  });

  it('takes a uid (its group from passwd) or uid:gid (any ids)', () => {
    expect(findSandboxUser('1000', PASSWD)).toEqual({ name: 'app', uid: 1000, gid: 1001 });
    expect(findSandboxUser('4242:4343', PASSWD)).toEqual({ name: '4242', uid: 4242, gid: 4343 });
  });

  it('gives undefined for an unknown name, or a bare uid it cannot find a group for', () => {
    expect(findSandboxUser('ghost', PASSWD)).toBeUndefined();
    expect(findSandboxUser('4242', PASSWD)).toBeUndefined();
  });
});
