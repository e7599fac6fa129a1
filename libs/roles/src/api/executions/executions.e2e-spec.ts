import request from 'supertest';
import { e2ePlaybook } from '../../../../../test/support/e2e-app';
import { waitFor } from '../../../../../test/support/wait-for';
import { noopPlaybook, startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

interface EventRow {
  event_id: string;
  event_type: string;
}

describe('execution routes', () => {
  let api: ApiTestApp;
  let catalogId: string;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler,worker' });
    const registered = await request(api.http)
      .post('/api/catalog/register')
      .send({ content: noopPlaybook('exec/three', ['a', 'b', 'c']) })
      .expect(201);
    catalogId = registered.body.catalog_id;
  });

  afterAll(async () => {
    await api?.close();
  });

  async function runToEnd(body: object): Promise<string> {
    const started = await request(api.http).post('/api/execute').send(body).expect(201);
    expect(started.body).toEqual({ execution_id: expect.stringMatching(/^\d+$/), status: 'RUNNING' });
    const id: string = started.body.execution_id;
    await waitFor(async () => (await request(api.http).get(`/api/executions/${id}`).expect(200)).body.status === 'COMPLETED', {
      timeoutMs: 20_000,
      description: `execution ${id} to complete`,
    });
    return id;
  }

  it('runs a registered playbook to COMPLETED and shows its steps and workload', async () => {
    const id = await runToEnd({ path: 'exec/three', payload: { region: 'eu' } });
    const detail = (await request(api.http).get(`/api/executions/${id}`).expect(200)).body;
    expect(detail).toMatchObject({
      execution_id: id,
      path: 'exec/three',
      version: 1,
      status: 'COMPLETED',
      error: null,
      workload: { region: 'eu' },
    });
    expect(detail.steps.map((s: { step: string; status: string }) => [s.step, s.status])).toEqual([
      ['a', 'COMPLETED'],
      ['b', 'COMPLETED'],
      ['c', 'COMPLETED'],
    ]);
  });

  it('reads the events page by page with `after`, in ledger order, and filters them by type', async () => {
    const id = await runToEnd({ catalog_id: catalogId, workload: { via: 'alias' } });
    const all: EventRow[] = (await request(api.http).get(`/api/executions/${id}/events`).expect(200)).body.events;
    expect(all[0]!.event_type).toBe('execution.started');
    expect(all.at(-1)!.event_type).toBe('execution.completed');

    const paged: EventRow[] = [];
    let after: string | null = null;
    do {
      const page: request.Response = await request(api.http)
        .get(`/api/executions/${id}/events`)
        .query({ limit: 2, ...(after ? { after } : {}) })
        .expect(200);
      expect(page.body.events.length).toBeLessThanOrEqual(2);
      paged.push(...page.body.events);
      after = page.body.next_after;
    } while (after !== null);
    expect(paged.map((e) => e.event_id)).toEqual(all.map((e) => e.event_id));

    const expected = all.filter((e) => e.event_type === 'step.enter' || e.event_type === 'execution.completed').map((e) => e.event_id);
    const commaSeparated = await request(api.http).get(`/api/executions/${id}/events?type=step.enter,execution.completed`).expect(200);
    expect(commaSeparated.body.events.map((e: EventRow) => e.event_id)).toEqual(expected);
    const repeated = await request(api.http).get(`/api/executions/${id}/events?type=step.enter&type=execution.completed`).expect(200);
    expect(repeated.body.events.map((e: EventRow) => e.event_id)).toEqual(expected);
  });

  it('lists executions by status, a page at a time', async () => {
    await runToEnd({ path: 'exec/three' });
    const first = await request(api.http).get('/api/executions').query({ status: 'COMPLETED', path: 'exec/three', limit: 1 }).expect(200);
    expect(first.body.executions).toHaveLength(1);
    expect(first.body.executions[0]).toMatchObject({ status: 'COMPLETED', path: 'exec/three' });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await request(api.http)
      .get('/api/executions')
      .query({ status: 'COMPLETED', path: 'exec/three', limit: 1, cursor: first.body.next_cursor })
      .expect(200);
    expect(second.body.executions[0].execution_id).not.toBe(first.body.executions[0].execution_id);
    expect((await request(api.http).get('/api/executions').query({ status: 'DONE' }).expect(400)).body.code).toBe('bad_request');
  });

  it('filters executions by parent and start time, and counts them per status', async () => {
    for (const name of ['child', 'parent']) {
      await request(api.http)
        .post('/api/catalog/register')
        .send({ content: e2ePlaybook(name) })
        .expect(201);
    }
    const before = new Date().toISOString();
    const parent = await runToEnd({ path: 'e2e/parent' });
    const children = (await request(api.http).get('/api/executions').query({ parent }).expect(200)).body.executions;
    expect(children).toEqual([expect.objectContaining({ parent_execution_id: parent, path: 'e2e/child', status: 'COMPLETED' })]);
    const since = (await request(api.http).get('/api/executions').query({ started_after: before }).expect(200)).body.executions;
    expect(since.map((e: { execution_id: string }) => e.execution_id).sort()).toEqual([parent, children[0].execution_id].sort());
    expect((await request(api.http).get('/api/executions').query({ started_before: before, parent }).expect(200)).body.executions).toEqual(
      [],
    );

    const counts = (path: string) => request(api.http).get('/api/executions/counts').query({ path }).expect(200);
    expect((await counts('e2e/parent')).body).toEqual({ RUNNING: 0, COMPLETED: 1, FAILED: 0, CANCELLED: 0 });
    expect((await request(api.http).get('/api/executions/counts').query({ parent, started_after: before }).expect(200)).body).toMatchObject(
      { COMPLETED: 1 },
    );
    expect((await request(api.http).get('/api/executions').query({ parent: 'abc' }).expect(400)).body.code).toBe('bad_request');
    expect((await request(api.http).get('/api/executions/counts').query({ started_after: 'yesterday' }).expect(400)).body.code).toBe(
      'bad_request',
    );
  });

  it('answers an unknown playbook with 404', async () => {
    expect((await request(api.http).post('/api/execute').send({ path: 'exec/missing' }).expect(404)).body.code).toBe('not_found');
    expect((await request(api.http).post('/api/execute').send({ catalog_id: '42' }).expect(404)).body.code).toBe('not_found');
  });

  it.each([
    ['an array', [1, 2]],
    ['a string', 'eu'],
    ['null', null],
  ])('answers a payload that is %s with 422 invalid_payload', async (_what, payload) => {
    const res = await request(api.http).post('/api/execute').send({ path: 'exec/three', payload }).expect(422);
    expect(res.body).toEqual({ code: 'invalid_payload', message: expect.stringContaining('JSON object') });
  });

  it.each([
    ['neither path nor catalog_id', {}],
    ['both path and catalog_id', { path: 'exec/three', catalog_id: '1' }],
    ['both payload and workload', { path: 'exec/three', payload: {}, workload: {} }],
  ])('answers %s with 400', async (_what, body) => {
    expect((await request(api.http).post('/api/execute').send(body).expect(400)).body.code).toBe('invalid_request');
  });

  it('answers an unknown execution with 404 on every route', async () => {
    expect((await request(api.http).get('/api/executions/123').expect(404)).body.code).toBe('not_found');
    expect((await request(api.http).get('/api/executions/123/events').expect(404)).body.code).toBe('not_found');
    expect((await request(api.http).post('/api/executions/123/cancel').send({}).expect(404)).body.code).toBe('not_found');
  });

  it('refuses to cancel an execution that already completed (409 already_terminal)', async () => {
    const id = await runToEnd({ path: 'exec/three' });
    const res = await request(api.http).post(`/api/executions/${id}/cancel`).send({ reason: 'too late' }).expect(409);
    expect(res.body).toEqual({ code: 'already_terminal', message: expect.any(String) });
  });
});
