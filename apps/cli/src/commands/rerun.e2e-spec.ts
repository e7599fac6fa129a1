import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { startApiTestApp, type ApiTestApp } from '../../../../libs/roles/src/api/testing/api-test-app';
import { runCli } from '../../../../test/support/cli-server-process';
import { ServerClient } from '../shared/server-client';
import { captureOutput } from '../shared/testing/capture-output';
import { registerFiles } from './register.command';
import { showStatus } from './status.command';

const hello = resolve(__dirname, '../../../../examples/hello.yaml');

/** `noetl rerun` (issue 26 item 4), as a script runs it: the built CLI against a running server. */
describe('noetl rerun', () => {
  let api: ApiTestApp;
  let url: string;
  let client: ServerClient;
  let original: string;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler,worker' });
    await api.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`;
    client = new ServerClient(url);
    await registerFiles([hello], client, captureOutput());
    original = (await client.execute({ path: 'examples/hello', payload: { name: 'Ada' } })).execution_id;
    expect(await showStatus(original, client, { watch: true }, captureOutput())).toBe(0);
  });

  afterAll(async () => {
    await api?.close();
  });

  it('re-runs from a step with --set, printing the new id alone with -q; status shows the links', async () => {
    const run = await runCli(['rerun', original, '--from', 'greet', '--set', 'name=Grace', '--server', url, '-q'], {});
    expect(run).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\n$/), stderr: '' });
    const id = run.stdout.trim();
    const status = await runCli(['status', id, '--watch', '--server', url, '--output', 'json'], {});
    expect(JSON.parse(status.stdout)).toMatchObject({
      execution_id: id,
      status: 'COMPLETED',
      result: { message: 'Hello, Grace!', letters: 5 },
      rerun_of: { execution_id: original, from_step: 'greet' },
    });

    const rerunShown = captureOutput();
    expect(await showStatus(id, client, {}, rerunShown)).toBe(0);
    expect(rerunShown.stdout).toContain(`  rerun of ${original} from step greet`);
    const originalShown = captureOutput();
    await showStatus(original, client, {}, originalShown);
    expect(originalShown.stdout).toContain(`  re-run as ${id}`);
  });

  it('re-runs from the start with the same payload, and says what is wrong with a step it does not know', async () => {
    const run = await runCli(['rerun', original, '--server', url, '--output', 'json'], {});
    expect(run.code).toBe(0);
    const started = JSON.parse(run.stdout) as { execution_id: string; status: string };
    expect(started.status).toBe('RUNNING');
    expect((await client.execution(started.execution_id)).workload).toEqual({ name: 'Ada' });

    const refused = await runCli(['rerun', original, '--from', 'nosuch', '--server', url], {});
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: 'noetl: invalid_request: "nosuch" is not a step of examples/hello version 1; its steps are start, greet, end (HTTP 400)\n',
    });
  });
});
