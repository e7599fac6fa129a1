import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '@noetl/config';
import { startApiTestApp, type ApiTestApp } from '../../../../libs/roles/src/api/testing/api-test-app';
import { runCli } from '../../../../test/support/cli-server-process';
import { waitFor } from '../../../../test/support/wait-for';
import { serverClient, ServerClient } from '../shared/server-client';
import { captureOutput } from '../shared/testing/capture-output';
import { listCatalog } from './catalog.command';
import { listCredentials } from './credentials.command';
import { printEvents } from './events.command';
import { listExecutions } from './executions.command';
import { printLogs } from './logs.command';
import { registerFiles } from './register.command';
import { showReplay } from './replay.command';
import { showStatus } from './status.command';
import { listWorkers } from './workers.command';

const hello = resolve(__dirname, '../../../../examples/hello.yaml');
const approval = resolve(__dirname, '../../../../examples/approval.yaml');
const CLI_MAIN = resolve(__dirname, '../../../../dist/apps/cli/src/main.js');

describe('noetl list commands, logs and output formats against a running server', () => {
  let api: ApiTestApp;
  let url: string;
  let client: ServerClient;
  let done: string;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler,worker' });
    await api.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`;
    client = new ServerClient(url);
    await registerFiles([hello, approval], client, captureOutput());
    done = (await client.execute({ path: 'examples/hello', payload: { name: 'Ada' } })).execution_id;
    expect(await showStatus(done, client, { watch: true }, captureOutput())).toBe(0);
  });

  afterAll(async () => {
    await api?.close();
  });

  it('lists executions newest first, filtered by status, path, start time and parent, as a table, ids or JSON', async () => {
    const running = (await client.execute({ path: 'examples/approval', payload: { patience: 60 } })).execution_id;
    try {
      const table = captureOutput();
      await listExecutions(client, {}, table);
      expect(table.stdout[0]).toMatch(/^ID\s+PATH\s+STATUS\s+STARTED\s+COMPLETED\s+PARENT$/);
      expect(table.stdout[1]).toMatch(new RegExp(`^${running}\\s+examples/approval v1\\s+RUNNING\\s+\\d{4}-`));

      const ids = async (options: Parameters<typeof listExecutions>[1]) => {
        const output = captureOutput();
        await listExecutions(client, { ...options, quiet: true }, output);
        return output.stdout;
      };
      expect(await ids({ status: 'COMPLETED', path: 'examples/hello' })).toEqual([done]);
      expect(await ids({ status: 'RUNNING' })).toEqual([running]);
      expect(await ids({ limit: 1 })).toEqual([running]);
      expect(await ids({ since: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
      expect(await ids({ parent: done })).toEqual([]);

      const json = captureOutput();
      await listExecutions(client, { output: 'json', path: 'examples/hello' }, json);
      expect(JSON.parse(json.stdout.join('\n'))).toEqual([
        expect.objectContaining({ execution_id: done, status: 'COMPLETED', path: 'examples/hello' }),
      ]);
      await expect(client.executions({ started_after: 'yesterday' })).rejects.toThrow(
        'bad_request: started_after must be a valid ISO 8601 date string (HTTP 400)',
      );
    } finally {
      await client.cancel(running);
    }
  });

  it('lists the catalog and the credentials', async () => {
    const catalog = captureOutput();
    await listCatalog(client, {}, catalog);
    expect(catalog.stdout[0]).toMatch(/^PATH\s+VERSION\s+NAME\s+CATALOG ID\s+REGISTERED$/);
    expect(catalog.stdout.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(
      expect.arrayContaining(['examples/hello', 'examples/approval']),
    );
    const paths = captureOutput();
    await listCatalog(client, { output: 'yaml' }, paths);
    expect(paths.stdout[0]).toContain('path: examples/hello');

    const credentials = captureOutput();
    await listCredentials(client, {}, credentials);
    expect(credentials.stdout).toEqual(['no credentials']);
  });

  it('lists the workers of one status', async () => {
    const active = captureOutput();
    await listWorkers(client, { status: 'active', quiet: true }, active);
    expect(active.stdout).toEqual([expect.stringMatching(/^\S+-\d+-[0-9a-f]{6}$/)]);
    const stopped = captureOutput();
    await listWorkers(client, { status: 'stopped' }, stopped);
    expect(stopped.stdout).toEqual(['no workers registered']);
    const pools = captureOutput();
    await listWorkers(client, { pools: true }, pools);
    expect(pools.stdout[0]).toMatch(/^POOL\s+WORKERS\s+SLOTS\s+FREE\s+COMMANDS WAITING\s+FRAMES WAITING$/);
    expect(pools.stdout[1]).toMatch(/^-\s+1\s+\d+\s+\d+\s+\d+\s+\d+$/);
    await expect(client.workers('gone' as 'stopped')).rejects.toThrow(
      /^bad_request: status must be one of the following values: active, draining, stale, stopped/,
    );
  });

  it('shows a step that waits for a signal as waiting, and as cancelled once the execution is cancelled', async () => {
    const { execution_id: id } = await client.execute({ path: 'examples/approval', payload: { patience: 60 } });
    await waitFor(async () => (await client.execution(id)).steps.find((step) => step.step === 'approve' && step.status === 'WAITING'), {
      timeoutMs: 10_000,
    });
    const waiting = captureOutput();
    await showStatus(id, client, {}, waiting);
    expect(waiting.stdout).toContain('… approve waiting');

    await client.cancel(id);
    await waitFor(async () => (await client.execution(id)).status === 'CANCELLED', { timeoutMs: 10_000 });
    expect((await client.execution(id)).steps.map((step) => [step.step, step.status])).toEqual([
      ['prepare', 'COMPLETED'],
      ['approve', 'CANCELLED'],
    ]);
    const cancelled = captureOutput();
    await showStatus(id, client, {}, cancelled);
    expect(cancelled.stdout).toContain('✗ approve cancelled');
  });

  it("prints an execution's events as log lines, and follows a running one to its end", async () => {
    const logs = captureOutput();
    await printLogs(done, client, {}, logs);
    expect(logs.stdout[0]).toMatch(new RegExp(`^\\d{4}-\\S+ \\d+ execution\\.started$`));
    expect(logs.stdout.at(-1)).toMatch(/ execution\.completed status=COMPLETED$/);

    // What user code printed, under its command's terminal event.
    await client.register(
      'apiVersion: noetl.io/v2\nkind: Playbook\nmetadata: {name: printing, path: tests/printing}\nworkflow:\n' +
        "  - step: talk\n    tool: {kind: javascript, code: \"console.log('first line'); console.error('to stderr'); return {ok: true}\"}\n",
    );
    const printing = (await client.execute({ path: 'tests/printing' })).execution_id;
    expect(await showStatus(printing, client, { watch: true }, captureOutput())).toBe(0);
    const printed = captureOutput();
    await printLogs(printing, client, {}, printed);
    const at = printed.stdout.findIndex((line) => / command\.completed/.test(line));
    expect(printed.stdout.slice(at + 1, at + 3)).toEqual(['    stdout| first line', '    stderr| to stderr']);

    const { execution_id: id } = await client.execute({ path: 'examples/approval', payload: { patience: 60 } });
    const followed = captureOutput();
    const following = printLogs(id, client, { follow: true, intervalMs: 50 }, followed);
    await client.cancel(id, 'the spec is done');
    await following;
    expect(followed.stdout.at(-1)).toMatch(/ execution\.(cancelled|failed)/);
  });

  it('says on stderr when it stopped at a full page of events, and refuses an unknown --type with the valid ones', async () => {
    const cut = captureOutput();
    await printEvents(done, client, { limit: 2 }, cut);
    expect(cut.stdout).toHaveLength(2);
    const second = cut.stdout[1]!.split(' ')[1];
    expect(cut.stderr).toEqual([
      `stopped at a full page of 2 events; there may be more: --after ${second} for the next page, --all for every page`,
    ]);
    const next = captureOutput();
    await printEvents(done, client, { limit: 2, after: second }, next);
    expect(next.stdout[0]!.split(' ')[1]).not.toBe(second);

    await expect(printEvents(done, client, { type: ['nosuch'] }, captureOutput())).rejects.toThrow(
      /^no such event type: nosuch; the event types are execution\.started, .*step\.exit/,
    );
  });

  it('shows the replayed state, not only its checksums', async () => {
    const { events } = await client.events(done, { limit: 1000 });
    const printed = captureOutput();
    await showReplay(done, client, { at: [events.at(-1)!.event_id] }, printed);
    expect(printed.stdout[0]).toContain('\nexecution:\n');
    expect(printed.stdout[0]).toContain('"status": "COMPLETED"');
  });

  it('ends quietly when the reader of its output closes the pipe early (noetl workers | head -1)', async () => {
    const child = spawn(process.execPath, [CLI_MAIN, 'workers', '--server', url], { stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader is gone before the command prints a line.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('prints the id alone with -q, ready for ID=$(noetl execute ... -q)', async () => {
    const run = await runCli(['execute', 'examples/hello', '--server', url, '-q'], {});
    expect(run).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\n$/), stderr: '' });
    const status = await runCli(['status', run.stdout.trim(), '--watch', '--server', url, '--output', 'json'], {});
    expect(JSON.parse(status.stdout)).toMatchObject({ execution_id: run.stdout.trim(), status: 'COMPLETED' });
  });
});

describe('step statuses on a server with no worker', () => {
  let api: ApiTestApp;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler' });
    await api.app.listen(0, '127.0.0.1');
  });

  afterAll(async () => {
    await api?.close();
  });

  it('shows a step whose command no worker has claimed as pending', async () => {
    const client = new ServerClient(`http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`);
    await registerFiles([hello], client, captureOutput());
    const { execution_id: id } = await client.execute({ path: 'examples/hello' });
    const pending = await waitFor(async () => (await client.execution(id)).steps.find((step) => step.status === 'PENDING'), {
      timeoutMs: 10_000,
    });
    expect(pending.step).toBe('greet');
    const printed = captureOutput();
    await showStatus(id, client, {}, printed);
    expect(printed.stdout).toContain('… greet pending');
    await client.cancel(id);
  });
});

describe('noetl client commands against a server with auth on', () => {
  let api: ApiTestApp;
  let home: string;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_AUTH: 'on' });
    await api.app.listen(0, '127.0.0.1');
    home = mkdtempSync(join(tmpdir(), 'noetl-home-'));
  });

  afterAll(async () => {
    rmSync(home, { recursive: true, force: true });
    await api?.close();
  });

  it('says where it looked for a key when it had none, and which key was refused', async () => {
    const url = `http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`;
    const keyless = serverClient(loadConfig({ NOETL_HOME: home }), url);
    await expect(keyless.workers()).rejects.toThrow(
      `no API key was found: NOETL_API_KEY is unset and ${join(home, 'admin.key')} does not exist`,
    );
    const wrong = serverClient(loadConfig({ NOETL_HOME: home, NOETL_API_KEY: 'not-a-key' }), url);
    await expect(wrong.workers()).rejects.toThrow('the key in NOETL_API_KEY is not valid there');
  });
});
