import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './support/deploy-files';

/**
 * The image's entrypoint (docker/entrypoint.sh) under /bin/sh, the shell the
 * image has (dash on Debian, as here), with a stand-in `node` first on PATH
 * that prints what it was asked to run: which app each NOETL_ROLES selects,
 * without booting it. deploy-probes.e2e-spec.ts runs it with the real node.
 */
const ENTRYPOINT = join(REPO_ROOT, 'docker', 'entrypoint.sh');
const CLI = join(REPO_ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const app = (role: string) => join(REPO_ROOT, 'dist', 'apps', role, 'src', 'main.js');

let bin: string;

beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'noetl-entrypoint-'));
  // Prints its own pid (the entrypoint's, when it was exec'd) and then its arguments.
  writeFileSync(join(bin, 'node'), '#!/bin/sh\necho "$$"\nfor arg in "$@"; do echo "$arg"; done\n');
  chmodSync(join(bin, 'node'), 0o755);
});

afterAll(() => rmSync(bin, { recursive: true, force: true }));

function entrypoint(env: Record<string, string>, args: string[] = []): { pid: number; argv: string[] } {
  const result = spawnSync('/bin/sh', [ENTRYPOINT, ...args], {
    env: { PATH: `${bin}:/usr/bin:/bin`, ...env },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`entrypoint exited ${result.status}: ${result.stderr}`);
  const [pid, ...argv] = result.stdout.trimEnd().split('\n');
  return { pid: result.pid, argv: pid === String(result.pid) ? argv : ['(not exec: node ran as a child of the shell)', ...argv] };
}

describe('docker/entrypoint.sh', () => {
  it.each(['api', 'scheduler', 'worker', 'projector'])('runs the %s app alone for NOETL_ROLES=%s, replacing the shell', (role) => {
    expect(entrypoint({ NOETL_ROLES: role }).argv).toEqual([app(role)]);
    expect(existsSync(app(role))).toBe(true);
  });

  it('reads NOETL_ROLES as the configuration does: blanks, empty items and repeats do not make several roles', () => {
    expect(entrypoint({ NOETL_ROLES: ' worker , worker,' }).argv).toEqual([app('worker')]);
  });

  it.each([
    ['unset', undefined],
    ['empty', ''],
    ['all', 'all'],
    ['several roles', 'api,scheduler'],
    ['an unknown role, which `noetl server` then refuses by name', 'wrker'],
  ])('runs `noetl server` when NOETL_ROLES is %s', (_case, roles) => {
    expect(entrypoint(roles === undefined ? {} : { NOETL_ROLES: roles }).argv).toEqual([CLI, 'server']);
    expect(existsSync(CLI)).toBe(true);
  });

  it('runs the noetl CLI with the arguments it is given, whatever NOETL_ROLES says', () => {
    expect(entrypoint({ NOETL_ROLES: 'worker' }, ['migrate', 'up']).argv).toEqual([CLI, 'migrate', 'up']);
    expect(entrypoint({}, ['run', 'my playbook.yaml', '--set', 'a=1']).argv).toEqual([CLI, 'run', 'my playbook.yaml', '--set', 'a=1']);
  });

  it('finds the app next to itself from any working directory', () => {
    const result = spawnSync('/bin/sh', [ENTRYPOINT], {
      cwd: tmpdir(),
      env: { PATH: `${bin}:/usr/bin:/bin`, NOETL_ROLES: 'api' },
      encoding: 'utf8',
    });
    expect(result.stdout.trimEnd().split('\n').slice(1)).toEqual([app('api')]);
  });
});
