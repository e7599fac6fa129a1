import request from 'supertest';
import { waitFor } from '../../../../../test/support/wait-for';
import { startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

const CHAIN = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: rerun_rest, path: rerun/rest}
workload: {broken: true}
workflow:
  - step: draw
    tool: {kind: javascript, code: "return {token: Math.random()};"}
    next: check
  - step: check
    tool: {kind: javascript, input: {broken: "{{ broken }}", token: "{{ draw.token }}"}, code: "if (broken) throw new Error('broken'); return {token: token};"}
`;

const SLEEPY = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: rerun_sleepy, path: rerun/sleepy}
workflow:
  - step: start
    tool: {kind: sleep, seconds: 60}
`;

/** POST /api/executions/{id}/rerun (issue 26 item 4) and the links GET /api/executions/{id} shows. */
describe('POST /api/executions/{id}/rerun', () => {
  let api: ApiTestApp;
  let failed: string;

  const ended = (id: string) =>
    waitFor(
      async () => {
        const detail = (await request(api.http).get(`/api/executions/${id}`).expect(200)).body;
        return detail.status !== 'RUNNING' && detail;
      },
      { timeoutMs: 20_000, description: `execution ${id} to end` },
    );

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler,worker' });
    for (const content of [CHAIN, SLEEPY]) await request(api.http).post('/api/catalog/register').send({ content }).expect(201);
    failed = (await request(api.http).post('/api/execute').send({ path: 'rerun/rest' }).expect(201)).body.execution_id;
    expect(await ended(failed)).toMatchObject({ status: 'FAILED', rerun_of: null, reruns: [] });
  });

  afterAll(async () => {
    await api?.close();
  });

  it('starts a new execution from a step with a new payload, linked to the original both ways', async () => {
    const res = await request(api.http)
      .post(`/api/executions/${failed}/rerun`)
      .send({ from_step: 'check', payload: { broken: false } })
      .expect(201);
    expect(res.body).toEqual({ execution_id: expect.stringMatching(/^\d+$/), status: 'RUNNING' });
    const id: string = res.body.execution_id;
    const detail = await ended(id);
    const events = (await request(api.http).get(`/api/executions/${failed}/events`).query({ type: 'step.exit' }).expect(200)).body.events;
    const token = events.find((event: { step: string }) => event.step === 'draw').payload.result.token;
    expect(detail).toMatchObject({
      status: 'COMPLETED',
      result: { token },
      workload: { broken: false },
      rerun_of: { execution_id: failed, from_step: 'check', as_of_event_id: expect.stringMatching(/^\d+$/) },
      reruns: [],
    });
    expect(detail.steps.map((step: { step: string }) => step.step)).toEqual(['check']);
    expect((await request(api.http).get(`/api/executions/${failed}`).expect(200)).body.reruns).toEqual([id]);

    const first = (await request(api.http).get(`/api/executions/${id}/events`).query({ limit: 1 }).expect(200)).body.events[0];
    expect(first).toMatchObject({
      event_type: 'execution.started',
      payload: { rerun_of: { execution_id: failed, from_step: 'check' }, seed: { results: { draw: { value: { token } } } } },
    });
    const replayed = (
      await request(api.http).get('/api/replay/state').query({ execution_id: id, as_of_position: 1, projection: 'execution' }).expect(200)
    ).body;
    expect(replayed.state.execution.rerunOf).toMatchObject({ executionId: failed, fromStep: 'check' });
  });

  it('re-runs from the start when no step is given', async () => {
    const id: string = (await request(api.http).post(`/api/executions/${failed}/rerun`).send({}).expect(201)).body.execution_id;
    expect(await ended(id)).toMatchObject({ status: 'FAILED', rerun_of: { execution_id: failed, from_step: null, as_of_event_id: null } });
    const steps = (await request(api.http).get(`/api/executions/${id}/events`).query({ type: 'step.enter' }).expect(200)).body.events;
    expect(steps.map((event: { step: string }) => event.step)).toEqual(['draw', 'check']);
  });

  it('answers a bad request with a clear error and starts nothing', async () => {
    const before = (await request(api.http).get('/api/executions').query({ limit: 1000 }).expect(200)).body.executions.length;
    const refused = async (id: string, body: object, status: number) =>
      (await request(api.http).post(`/api/executions/${id}/rerun`).send(body).expect(status)).body;

    expect(await refused(failed, { from_step: 'nosuch' }, 400)).toEqual({
      code: 'invalid_request',
      message: '"nosuch" is not a step of rerun/rest version 1; its steps are draw, check',
    });
    expect((await refused(failed, { from_step: 7 }, 400)).message).toMatch(/from_step must be a string/);
    expect((await refused(failed, { from_step: '' }, 400)).message).toMatch(/from_step should not be empty/);
    expect((await refused(failed, { step: 'check' }, 400)).message).toMatch(/property step should not exist/);
    expect(await refused(failed, { payload: [1] }, 422)).toMatchObject({ code: 'invalid_payload' });
    expect(await refused('123456789', {}, 404)).toMatchObject({ code: 'not_found', message: 'execution 123456789 not found' });

    const sleepy: string = (await request(api.http).post('/api/execute').send({ path: 'rerun/sleepy' }).expect(201)).body.execution_id;
    expect(await refused(sleepy, {}, 409)).toEqual({
      code: 'execution_running',
      message: `execution ${sleepy} is still running; cancel it (or let it end) before re-running it`,
    });
    await request(api.http).post(`/api/executions/${sleepy}/cancel`).send({}).expect(202);
    expect((await request(api.http).get('/api/executions').query({ limit: 1000 }).expect(200)).body.executions.length).toBe(before + 1);
  });
});
