import request from 'supertest';
import { waitFor } from '../../../../test/support/wait-for';
import { noopPlaybook, startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

interface EventView {
  event_id: string;
  event_type: string;
}

/** Time travel over REST: one process with the projector, so the projection and replay can be compared. */
describe('replay routes', () => {
  let api: ApiTestApp;
  let executionId: string;
  let events: EventView[];

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler,worker,projector' });
    await request(api.http).post('/api/catalog/register').send({ content: noopPlaybook('replay/three', ['a', 'b', 'c']) }).expect(201);
    executionId = (await request(api.http).post('/api/execute').send({ path: 'replay/three' }).expect(201)).body.execution_id;
    await waitFor(async () => (await request(api.http).get(`/api/executions/${executionId}`).expect(200)).body.status === 'COMPLETED', {
      timeoutMs: 20_000,
      description: 'the execution to complete',
    });
    events = (await request(api.http).get(`/api/executions/${executionId}/events`).query({ limit: 1000 }).expect(200)).body.events;
  });

  afterAll(async () => {
    await api?.close();
  });

  const replay = (query: Record<string, string>) => request(api.http).get('/api/replay/state').query({ execution_id: executionId, ...query });

  it('shows the state as of every event of a 3-step execution, each step appearing at its step.enter', async () => {
    let previous: string | undefined;
    for (const [index, event] of events.entries()) {
      const body = (await replay({ as_of_event_id: event.event_id }).expect(200)).body;
      expect(body.position).toMatchObject({ event_id: event.event_id, stream_version: index + 1 });
      expect(body.checksums.all).not.toBe(previous);
      previous = body.checksums.all;
      const entered = events.slice(0, index + 1).filter((e) => e.event_type === 'step.enter').length;
      expect(Object.keys(body.state.steps.steps)).toHaveLength(entered);
    }
    const last = (await replay({}).expect(200)).body;
    expect(last.position.event_id).toBe(events.at(-1)!.event_id);
    expect(last.state.execution.status).toBe('COMPLETED');
    expect(last.checksums.all).toBe(previous);
  });

  it('returns only the surfaces asked for, and checksums for all of them', async () => {
    const body = (await replay({ projection: 'commands,steps' }).expect(200)).body;
    expect(Object.keys(body.state).sort()).toEqual(['commands', 'steps']);
    expect(Object.keys(body.checksums).sort()).toEqual(['all', 'commands', 'execution', 'frames', 'loops', 'payloads', 'stages', 'steps']);
    expect(body).toMatchObject({ reducer_version: expect.any(String), upcaster_digest: expect.stringMatching(/^[0-9a-f]{64}$/), payload_refs: [] });
  });

  it('answers bad input with 400 and an unknown execution or event with 404', async () => {
    expect((await request(api.http).get('/api/replay/state').expect(400)).body.code).toBe('bad_request');
    expect((await replay({ as_of_event_id: 'x' }).expect(400)).body.code).toBe('bad_request');
    expect((await replay({ as_of_time: 'yesterday' }).expect(400)).body.code).toBe('bad_request');
    expect((await replay({ projection: 'everything' }).expect(400)).body.code).toBe('bad_request');
    expect((await replay({ as_of_position: '0' }).expect(400)).body.code).toBe('bad_request');
    expect((await replay({ as_of_position: '1', as_of_event_id: events[0]!.event_id }).expect(400)).body.code).toBe('invalid_request');
    expect((await request(api.http).get('/api/replay/state').query({ execution_id: '1' }).expect(404)).body.code).toBe('not_found');
    expect((await replay({ as_of_event_id: '1' }).expect(404)).body.code).toBe('not_found');
    expect((await replay({ as_of_time: '2000-01-01T00:00:00Z' }).expect(400)).body.code).toBe('invalid_request');
  });
});
