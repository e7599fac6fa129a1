import request from 'supertest';
import { waitFor } from '../../../../../test/support/wait-for';
import { noopPlaybook, startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

/**
 * The admin routes over HTTP. The app runs the scheduler but no worker (the
 * spec claims commands itself) and no periodic sweep, so nothing else takes
 * a command from its holder.
 */
describe('admin routes', () => {
  let api: ApiTestApp;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler', NOETL_SWEEP_MS: '600000' });
    await request(api.http)
      .post('/api/catalog/register')
      .send({ content: noopPlaybook('admin/one') })
      .expect(201);
  });

  afterAll(async () => {
    await api?.close();
  });

  async function issuedCommands(executionId: string): Promise<string[]> {
    const page = await request(api.http).get(`/api/executions/${executionId}/events`).query({ type: 'command.issued' }).expect(200);
    return page.body.events.map((event: { command_id: string }) => event.command_id);
  }

  async function issuedCommand(): Promise<{ executionId: string; commandId: string }> {
    const started = await request(api.http).post('/api/execute').send({ path: 'admin/one' }).expect(201);
    const executionId: string = started.body.execution_id;
    const commandId = await waitFor(async () => (await issuedCommands(executionId))[0], {
      timeoutMs: 20_000,
      description: 'the first command',
    });
    return { executionId, commandId };
  }

  it('lists a command whose lease ran out, reclaims it, and the scheduler issues the next attempt', async () => {
    const { executionId, commandId } = await issuedCommand();
    await request(api.http).post(`/api/commands/${commandId}/claim`).send({ worker_id: 'w1', lease_ms: 1 }).expect(200);
    const listed = await waitFor(async () => {
      const res = await request(api.http).get('/api/admin/stuck').query({ kind: 'command' }).expect(200);
      return (res.body.stuck as { id: string; reason: string }[]).find((work) => work.id === commandId);
    });
    expect(listed).toMatchObject({
      kind: 'command',
      execution_id: executionId,
      status: 'RUNNING',
      worker_id: 'w1',
      reason: 'lease_expired',
    });

    const reclaimed = await request(api.http)
      .post(`/api/admin/commands/${commandId}/reclaim`)
      .send({ actor: 'ops', reason: 'host lost' })
      .expect(200);
    expect(reclaimed.body).toEqual({
      action: 'reclaim',
      target_type: 'command',
      target_id: commandId,
      execution_id: executionId,
      event_id: expect.any(String),
      status: 'ABANDONED',
    });
    await waitFor(async () => (await issuedCommands(executionId)).length === 2, { timeoutMs: 20_000, description: 'the next attempt' });
    const audit = await request(api.http).get(`/api/executions/${executionId}/events`).query({ type: 'admin.action' }).expect(200);
    expect(audit.body.events).toEqual([
      expect.objectContaining({
        event_id: reclaimed.body.event_id,
        payload: { actor: 'ops', action: 'reclaim', target_type: 'command', target_id: commandId, reason: 'host lost' },
      }),
    ]);

    const again = await request(api.http).post(`/api/admin/commands/${commandId}/reclaim`).send({}).expect(409);
    expect(again.body).toEqual({ code: 'already_terminal', message: expect.any(String) });
  });

  it('documents its routes in Swagger under the admin tag, each POST with its body', async () => {
    const doc = await request(api.http).get('/docs-json').expect(200);
    const admin = Object.entries(doc.body.paths as Record<string, Record<string, { tags: string[]; requestBody?: unknown }>>).filter(
      ([path]) => path.startsWith('/api/admin/'),
    );
    expect(admin.map(([path, methods]) => `${Object.keys(methods).join(',')} ${path}`).sort()).toEqual([
      'get /api/admin/stuck',
      'post /api/admin/commands/{id}/fail',
      'post /api/admin/commands/{id}/reclaim',
      'post /api/admin/executions/{id}/cancel',
      'post /api/admin/executions/{id}/finalize',
      'post /api/admin/executions/{id}/purge',
      'post /api/admin/frames/{id}/fail',
      'post /api/admin/frames/{id}/reclaim',
    ]);
    for (const [, methods] of admin) {
      for (const [method, operation] of Object.entries(methods)) {
        expect(operation.tags).toEqual(['admin']);
        if (method === 'post') expect(operation.requestBody).toBeDefined();
      }
    }
  });

  it('answers 404 for unknown targets', async () => {
    for (const path of ['/api/admin/commands/4242/reclaim', '/api/admin/frames/4242/reclaim', '/api/admin/executions/4242/cancel']) {
      const res = await request(api.http).post(path).send({}).expect(404);
      expect(res.body.code).toBe('not_found');
    }
    for (const path of ['/api/admin/commands/4242/fail', '/api/admin/frames/4242/fail', '/api/admin/executions/4242/finalize']) {
      expect((await request(api.http).post(path).send({ reason: 'x' }).expect(404)).body.code).toBe('not_found');
    }
  });

  it('answers 400 for a fail or finalize without a reason, an unknown field, a bad query, or an unclaimed command', async () => {
    const { executionId, commandId } = await issuedCommand();
    expect((await request(api.http).post(`/api/admin/commands/${commandId}/fail`).send({}).expect(400)).body.code).toBe('bad_request');
    expect(
      (await request(api.http).post(`/api/admin/executions/${executionId}/finalize`).send({ actor: 'ops' }).expect(400)).body.code,
    ).toBe('bad_request');
    await request(api.http).post(`/api/admin/executions/${executionId}/cancel`).send({ by: 'ops' }).expect(400);
    await request(api.http).get('/api/admin/stuck').query({ kind: 'timer' }).expect(400);
    await request(api.http).get('/api/admin/stuck').query({ limit: 0 }).expect(400);
    expect((await request(api.http).post(`/api/admin/commands/${commandId}/reclaim`).send({}).expect(400)).body.code).toBe(
      'invalid_request',
    );
  });

  it('finalizes an execution once; a second finalize or a cancel is 409', async () => {
    const { executionId } = await issuedCommand();
    const finalized = await request(api.http).post(`/api/admin/executions/${executionId}/finalize`).send({ reason: 'stuck' }).expect(200);
    expect(finalized.body).toMatchObject({ action: 'finalize', target_type: 'execution', target_id: executionId, status: 'FAILED' });
    await waitFor(async () => (await request(api.http).get(`/api/executions/${executionId}`).expect(200)).body.status === 'FAILED', {
      timeoutMs: 20_000,
      description: 'the execution to read FAILED',
    });
    expect(
      (await request(api.http).post(`/api/admin/executions/${executionId}/finalize`).send({ reason: 'again' }).expect(409)).body.code,
    ).toBe('already_terminal');
    expect((await request(api.http).post(`/api/admin/executions/${executionId}/cancel`).send({}).expect(409)).body.code).toBe(
      'already_terminal',
    );
  });
});
