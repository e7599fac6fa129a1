import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig, type NoetlConfig } from '@noetl/config';
import { Database, ScheduleRepository } from '@noetl/storage';
import { baseDatabaseUrl, SUPERUSER_PLAYBOOKS_ENV } from '../../../../test/support/postgres';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';
import { captureOutput } from '../shared/testing/capture-output';
import { runPlaybook } from './run-playbook';

const examples = resolve(__dirname, '../../../../examples');

const FAILING = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: { name: failing, path: cli-test/failing }
workflow:
  - step: start
    next: explode
  - step: explode
    tool:
      kind: javascript
      code: |
        throw new Error('boom');
`;

// A run that never ends is cancelled at this deadline and fails its test with the detail, instead of hanging.
const DEADLINE = { timeoutMs: 20_000 };
jest.setTimeout(30_000);

describe('noetl run', () => {
  let db: TestDatabase;
  let config: NoetlConfig;
  let scratch: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', ...SUPERUSER_PLAYBOOKS_ENV });
    scratch = mkdtempSync(join(tmpdir(), 'noetl-cli-'));
  });

  afterAll(async () => {
    rmSync(scratch, { recursive: true, force: true });
    await db?.drop();
  });

  it('runs examples/hello.yaml with a --set value, prints each step and the result, and exits 0', async () => {
    const output = captureOutput();
    expect(await runPlaybook(join(examples, 'hello.yaml'), { ...DEADLINE, set: { name: 'Ada' } }, output, config)).toBe(0);
    expect(output.stdout.filter((line) => line.startsWith('✓ ')).map((line) => line.split(' ')[1])).toEqual(['start', 'greet', 'end']);
    expect(output.stdout.at(-2)).toMatch(/^execution \d+ \(examples\/hello v\d+\) COMPLETED in /);
    expect(JSON.parse(output.stdout.at(-1)!)).toEqual({ message: 'Hello, Ada!', letters: 3 });
    expect(output.stderr).toEqual([]);
  });

  it.each([
    ['routing.yaml', { size: 'large', approved: true, checks: { limit: true, fraud: true } }, {}],
    ['pipeline.yaml', { summary: { count: 7, sum: 93, mean: 93 / 7, median: 9 }, above_mean: [15, 26, 31], mean: 93 / 7 }, {}],
    ['retry.yaml', { ready: true, waited_ms: expect.any(Number) }, {}],
    ['sleep.yaml', { slept_until: expect.any(String), slept_ms: expect.any(Number) }, {}],
    ['fanout.yaml', { total: 204, items: 8 }, {}],
    // Streams from the machine's PostgreSQL (the base database, not this run's ledger).
    ['streaming.yaml', { rows: 2500, chunks: 3 }, { dsn: baseDatabaseUrl() }],
    ['approval.yaml', { order: 42, status: 'escalated', reason: expect.stringContaining('no signal "approval" arrived') }, {}],
    ['schedule.yaml', { report: 'ad-hoc' }, {}],
    ['python.yaml', { summary: { count: 6, mean: 28 / 6, median: 4.5, spread: 7 } }, {}],
    [
      'postgres.yaml',
      {
        customers: 2,
        totals: [
          { customer: 'ada', total: 160 },
          { customer: 'grace', total: 80 },
        ],
      },
      { dsn: baseDatabaseUrl() },
    ],
    ['cursor-loop.yaml', { done: 7, sum_of_squares: 140 }, { dsn: baseDatabaseUrl() }],
  ])('runs examples/%s to completion', async (file, result, set: Record<string, string>) => {
    const output = captureOutput();
    const code = await runPlaybook(join(examples, file), { ...DEADLINE, json: true, set }, output, config);
    expect(output.stderr).toEqual([]);
    expect(code).toBe(0);
    expect(output.stdout).toHaveLength(1);
    expect(JSON.parse(output.stdout[0]!)).toMatchObject({ status: 'COMPLETED', result });
  });

  it('runs examples/sub-playbook.yaml: hello as a child execution, its result the step result', async () => {
    expect(await runPlaybook(join(examples, 'hello.yaml'), DEADLINE, captureOutput(), config)).toBe(0);
    const output = captureOutput();
    expect(
      await runPlaybook(join(examples, 'sub-playbook.yaml'), { ...DEADLINE, json: true, set: { name: 'Grace' } }, output, config),
    ).toBe(0);
    expect(JSON.parse(output.stdout[0]!)).toMatchObject({ status: 'COMPLETED', result: { child_said: 'Hello, Grace!' } });
  });

  it('runs examples/http-credential.yaml: the keychain token reaches the server as a bearer header', async () => {
    const server = createServer((req, res) => {
      const authenticated = req.headers.authorization === 'Bearer s3cret';
      res.writeHead(authenticated ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify({ authenticated }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/me`;
      const output = captureOutput();
      expect(
        await runPlaybook(
          join(examples, 'http-credential.yaml'),
          { ...DEADLINE, json: true, set: { url, token: 's3cret' } },
          output,
          config,
        ),
      ).toBe(0);
      expect(JSON.parse(output.stdout[0]!)).toMatchObject({
        status: 'COMPLETED',
        result: { status: 200, answer: { authenticated: true } },
      });
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('runs examples/fanout.yaml with an item that always fails: partial, routed on fanin.status', async () => {
    const output = captureOutput();
    const code = await runPlaybook(join(examples, 'fanout.yaml'), { ...DEADLINE, json: true, set: { ids: [3, 13, 5] } }, output, config);
    expect(code).toBe(0);
    expect(JSON.parse(output.stdout[0]!)).toMatchObject({ status: 'COMPLETED', result: { failed: 1, succeeded: 2 } });
  });

  it('runs a playbook that declares a schedule once, and schedules nothing', async () => {
    expect(await runPlaybook(join(examples, 'schedule.yaml'), { ...DEADLINE, json: true }, captureOutput(), config)).toBe(0);
    const database = await Database.connect(db.url);
    try {
      expect(await new ScheduleRepository().list(database, config.tenancy)).toEqual([]);
    } finally {
      await database.close();
    }
  });

  it('exits 1 and prints the error of a playbook that fails', async () => {
    const file = join(scratch, 'failing.yaml');
    writeFileSync(file, FAILING);
    const output = captureOutput();
    expect(await runPlaybook(file, DEADLINE, output, config)).toBe(1);
    expect(output.stdout).toContainEqual(expect.stringMatching(/^✗ explode failed/));
    expect(output.stdout.at(-1)).toMatch(/FAILED in /);
    expect(output.stderr).toEqual([expect.stringMatching(/^step explode failed \(code\): .*boom/)]);
  });

  it('prints the problems of an invalid playbook as file:line:column and exits 1', async () => {
    const file = join(scratch, 'invalid.yaml');
    writeFileSync(file, FAILING.replace('next: explode', 'next: nowhere'));
    const output = captureOutput();
    expect(await runPlaybook(file, {}, output, config)).toBe(1);
    expect(output.stderr).toEqual([expect.stringMatching(new RegExp(`^${file}:\\d+:\\d+ workflow\\[0\\]\\.next .*nowhere`))]);
  });
});
