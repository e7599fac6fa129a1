import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { waitFor } from '../../../../../test/support/wait-for';
import { noopPlaybook, startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

/**
 * The worker control plane over HTTP. The app runs the scheduler but no
 * worker, so issued commands wait and this spec plays the worker.
 */
describe('worker control plane routes', () => {
  let api: ApiTestApp;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler', NOETL_ENCRYPTION_KEY: randomBytes(32).toString('hex') });
    await request(api.http)
      .post('/api/catalog/register')
      .send({ content: noopPlaybook('cp/one') })
      .expect(201);
    await request(api.http)
      .post('/api/credentials')
      .send({ name: 'pg_main', type: 'postgres', data: { password: 's3cret' } })
      .expect(201);
    await request(api.http)
      .post('/api/credentials')
      .send({ name: 'pg_other', type: 'postgres', data: { password: 'n0t-yours' } })
      .expect(201);
    await request(api.http).post('/api/catalog/register').send({ content: PG_PLAYBOOK }).expect(201);
  });

  afterAll(async () => {
    await api?.close();
  });

  /** Starts `path` and returns its execution and the id of its issued command. */
  async function issuedCommand(path = 'cp/one'): Promise<{ executionId: string; commandId: string }> {
    const started = await request(api.http).post('/api/execute').send({ path }).expect(201);
    const executionId: string = started.body.execution_id;
    const commandId = await waitFor(
      async () => {
        const page = await request(api.http).get(`/api/executions/${executionId}/events`).query({ type: 'command.issued' }).expect(200);
        return page.body.events[0]?.command_id as string | undefined;
      },
      { timeoutMs: 20_000, description: `a command of execution ${executionId}` },
    );
    return { executionId, commandId };
  }

  /** Claims `commandId` as `workerId` and returns the lease token only the claim hands out. */
  async function claim(commandId: string, workerId = 'w1'): Promise<string> {
    const claimed = await request(api.http).post(`/api/commands/${commandId}/claim`).send({ worker_id: workerId }).expect(200);
    return claimed.body.lease_token as string;
  }

  function statusOf(executionId: string): Promise<string> {
    return request(api.http)
      .get(`/api/executions/${executionId}`)
      .expect(200)
      .then((res) => res.body.status as string);
  }

  it('claims, heartbeats, records calls and completes a command; a duplicate complete is 409 already_terminal', async () => {
    const { executionId, commandId } = await issuedCommand();
    const command = `/api/commands/${commandId}`;

    const claimed = await request(api.http).post(`${command}/claim`).send({ worker_id: 'w1', lease_ms: 60_000 }).expect(200);
    expect(claimed.body).toMatchObject({ command_id: commandId, execution_id: executionId, step: 'start', kind: 'noop', attempt: 1 });
    const w1 = { worker_id: 'w1', lease_token: claimed.body.lease_token as string };
    expect(w1.lease_token).toMatch(/^[\w-]{32}$/);
    const taken = await request(api.http).post(`${command}/claim`).send({ worker_id: 'w2' }).expect(409);
    expect(taken.body.code).toBe('already_claimed');

    const beat = await request(api.http).post(`${command}/heartbeat`).send(w1).expect(200);
    expect(beat.body).toEqual({ lease_until: expect.any(String), cancelled: false });
    expect(
      (
        await request(api.http)
          .post(`${command}/heartbeat`)
          .send({ ...w1, worker_id: 'w2' })
          .expect(409)
      ).body.code,
    ).toBe('lease_lost');

    const calls = [{ task: 'start', attempts: 1, duration_ms: 3, status: 'ok' }];
    const recorded = await request(api.http)
      .post('/api/events')
      .send({ command_id: commandId, ...w1, calls })
      .expect(202);
    expect(recorded.body).toEqual({ command_id: commandId, recorded: 1 });

    const done = await request(api.http)
      .post(`${command}/complete`)
      .send({ ...w1, result: { rows: [1, 2] }, duration_ms: 3 })
      .expect(200);
    expect(done.body).toEqual({ command_id: commandId, status: 'COMPLETED' });
    const late = await request(api.http)
      .post(`${command}/complete`)
      .send({ ...w1, result: { rows: [] } })
      .expect(409);
    expect(late.body).toEqual({ code: 'already_terminal', message: expect.any(String) });
    const lateFail = await request(api.http)
      .post(`${command}/fail`)
      .send({ ...w1, error: { kind: 'tool_error', message: 'x' } })
      .expect(409);
    expect(lateFail.body.code).toBe('already_terminal');

    await waitFor(async () => (await statusOf(executionId)) === 'COMPLETED', {
      timeoutMs: 20_000,
      description: 'the execution to complete',
    });
    const completions = await request(api.http)
      .get(`/api/executions/${executionId}/events`)
      .query({ type: 'command.completed' })
      .expect(200);
    expect(completions.body.events).toHaveLength(1);
  });

  it('refuses a report from whoever knows only the worker id the events show: the lease token proves the claim', async () => {
    const { executionId, commandId } = await issuedCommand();
    const command = `/api/commands/${commandId}`;
    const token = await claim(commandId);
    const claimedBy = await waitFor(
      async () => {
        const page = await request(api.http).get(`/api/executions/${executionId}/events`).query({ type: 'command.claimed' }).expect(200);
        return page.body.events[0]?.payload?.worker_id as string | undefined;
      },
      { timeoutMs: 20_000, description: 'the command.claimed event' },
    );
    expect(JSON.stringify((await request(api.http).get(`/api/executions/${executionId}/events`).expect(200)).body)).not.toContain(token);

    const forged = { worker_id: claimedBy, result: { forged: true } };
    expect((await request(api.http).post(`${command}/complete`).send(forged).expect(400)).body.code).toBe('bad_request');
    expect(
      (
        await request(api.http)
          .post(`${command}/complete`)
          .send({ ...forged, lease_token: 'guessed' })
          .expect(409)
      ).body.code,
    ).toBe('lease_lost');
    expect((await request(api.http).post(`${command}/claim`).send({ worker_id: claimedBy }).expect(409)).body.code).toBe('already_claimed');

    await request(api.http)
      .post(`${command}/complete`)
      .send({ worker_id: claimedBy, lease_token: token, result: { real: true } })
      .expect(200);
    await waitFor(async () => (await statusOf(executionId)) === 'COMPLETED', {
      timeoutMs: 20_000,
      description: 'the execution to complete',
    });
    const completions = await request(api.http)
      .get(`/api/executions/${executionId}/events`)
      .query({ type: 'command.completed' })
      .expect(200);
    expect(completions.body.events.map((event: { payload: { result: unknown } }) => event.payload.result)).toEqual([{ real: true }]);
  });

  it('fails a command with its error, and the execution fails with it', async () => {
    const { executionId, commandId } = await issuedCommand();
    const lease_token = await claim(commandId);
    const error = { kind: 'http_error', message: 'upstream said 500', status: 500, retryable: false };
    const failed = await request(api.http)
      .post(`/api/commands/${commandId}/fail`)
      .send({ worker_id: 'w1', lease_token, error })
      .expect(200);
    expect(failed.body).toEqual({ command_id: commandId, status: 'FAILED' });
    await waitFor(async () => (await statusOf(executionId)) === 'FAILED', { timeoutMs: 20_000, description: 'the execution to fail' });
    const detail = await request(api.http).get(`/api/executions/${executionId}`).expect(200);
    expect(detail.body.error).toMatchObject({ kind: 'http_error', message: 'upstream said 500' });
  });

  it('resolves only the credentials its step names for the worker holding the lease, and cancels through to the heartbeat', async () => {
    const { executionId, commandId } = await issuedCommand('cp/pg');
    const w1 = { worker_id: 'w1', lease_token: await claim(commandId) };
    const resolved = await request(api.http)
      .post(`/api/commands/${commandId}/credential`)
      .send({ ...w1, name: 'pg_main' })
      .expect(200);
    expect(resolved.body).toEqual({ type: 'postgres', data: { password: 's3cret' } });
    const other = await request(api.http)
      .post(`/api/commands/${commandId}/credential`)
      .send({ ...w1, name: 'pg_other' })
      .expect(403);
    expect(other.body).toEqual({ code: 'credential_not_allowed', message: expect.stringContaining('pg_other') });
    expect(JSON.stringify(other.body)).not.toContain('n0t-yours');
    const stranger = { ...w1, lease_token: 'not-the-token', name: 'pg_main' };
    expect((await request(api.http).post(`/api/commands/${commandId}/credential`).send(stranger).expect(409)).body.code).toBe('lease_lost');

    expect((await request(api.http).post(`/api/executions/${executionId}/cancel`).send({ reason: 'enough' }).expect(202)).body).toEqual({
      execution_id: executionId,
      status: 'CANCELLED',
    });
    await waitFor(async () => (await request(api.http).post(`/api/commands/${commandId}/heartbeat`).send(w1)).body.cancelled === true, {
      timeoutMs: 20_000,
      description: 'the heartbeat to report the cancel',
    });
    expect(await statusOf(executionId)).toBe('CANCELLED');
  });

  it('starts a child execution for the command a worker holds', async () => {
    const { executionId, commandId } = await issuedCommand();
    const lease_token = await claim(commandId);
    const child = await request(api.http)
      .post(`/api/commands/${commandId}/child`)
      .send({ worker_id: 'w1', lease_token, path: 'cp/one', payload: { n: 1 } })
      .expect(201);
    expect(child.body).toEqual({ execution_id: expect.stringMatching(/^\d+$/) });
    const detail = await request(api.http).get(`/api/executions/${child.body.execution_id}`).expect(200);
    expect(detail.body).toMatchObject({ parent_execution_id: executionId, path: 'cp/one', workload: { n: 1 } });
  });

  it('records a chunk as call.partial with its rows in the payload store, once per chunk index, for the lease holder only', async () => {
    const { executionId, commandId } = await issuedCommand();
    const w1 = { worker_id: 'w1', lease_token: await claim(commandId) };
    const chunk = { chunk_index: 0, has_more: true, columns: ['n'], rows: [{ n: 1 }, { n: 2 }] };
    const partial = `/api/commands/${commandId}/partial`;
    expect(
      (
        await request(api.http)
          .post(partial)
          .send({ ...w1, ...chunk })
          .expect(202)
      ).body,
    ).toEqual({ command_id: commandId, chunk_index: 0, pending_chunks: expect.any(Number) });
    await request(api.http)
      .post(partial)
      .send({ ...w1, ...chunk })
      .expect(202);
    expect(
      (
        await request(api.http)
          .post(partial)
          .send({ ...w1, lease_token: 'guessed', ...chunk, chunk_index: 1 })
          .expect(409)
      ).body.code,
    ).toBe('lease_lost');
    expect(
      (
        await request(api.http)
          .post(partial)
          .send({ ...w1, ...chunk, rows: [1, 2] })
          .expect(400)
      ).body.code,
    ).toBe('bad_request');
    expect(
      (
        await request(api.http)
          .post(partial)
          .send({ ...w1, ...chunk, chunk_index: -1 })
          .expect(400)
      ).body.code,
    ).toBe('bad_request');

    const page = await request(api.http).get(`/api/executions/${executionId}/events`).query({ type: 'call.partial' }).expect(200);
    expect(page.body.events).toEqual([
      expect.objectContaining({
        command_id: commandId,
        step: 'start',
        payload: {
          task: 'start',
          chunk_index: 0,
          has_more: true,
          row_count: 2,
          columns: ['n'],
          rows_ref: expect.objectContaining({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }),
        },
      }),
    ]);
    await request(api.http)
      .post(`/api/commands/${commandId}/complete`)
      .send({ ...w1, result: {} })
      .expect(200);
    expect(
      (
        await request(api.http)
          .post(partial)
          .send({ ...w1, ...chunk, chunk_index: 1 })
          .expect(409)
      ).body.code,
    ).toBe('already_terminal');
  });

  it('validates every body and answers an unknown command with 404', async () => {
    const { commandId } = await issuedCommand();
    const command = `/api/commands/${commandId}`;
    const w1 = { worker_id: 'w1', lease_token: 'x' };
    expect((await request(api.http).post(`${command}/claim`).send({}).expect(400)).body.code).toBe('bad_request');
    expect((await request(api.http).post(`${command}/claim`).send({ worker_id: 'w1', lease_ms: -5 }).expect(400)).body.code).toBe(
      'bad_request',
    );
    expect(
      (
        await request(api.http)
          .post(`${command}/fail`)
          .send({ ...w1, error: { message: 'no kind' } })
          .expect(400)
      ).body.code,
    ).toBe('bad_request');
    expect(
      (
        await request(api.http)
          .post(`${command}/complete`)
          .send({ ...w1, calls: [{ task: 't' }] })
          .expect(400)
      ).body.code,
    ).toBe('bad_request');
    expect((await request(api.http).post(`${command}/heartbeat`).send({ worker_id: 'w1' }).expect(400)).body.code).toBe('bad_request');
    expect(
      (
        await request(api.http)
          .post('/api/events')
          .send({ ...w1, calls: [] })
          .expect(400)
      ).body.code,
    ).toBe('bad_request');
    expect((await request(api.http).post('/api/commands/999/claim').send({ worker_id: 'w1' }).expect(404)).body.code).toBe('not_found');
  });
});

/** A step that names `pg_main`: its command may resolve that credential and no other. */
const PG_PLAYBOOK = [
  'apiVersion: noetl.io/v2',
  'kind: Playbook',
  'metadata:',
  '  name: cp_pg',
  '  path: cp/pg',
  'workflow:',
  '  - step: start',
  '    tool: {kind: postgres, auth: pg_main, command: "SELECT 1"}',
  '',
].join('\n');
