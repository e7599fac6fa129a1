import request from 'supertest';
import { waitFor } from '../../../../../test/support/wait-for';
import { noopPlaybook, startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

interface EventView {
  event_id: string;
  event_type: string;
  position: number;
}

/** Time travel over REST: one process with the projector, so the projection and replay can be compared. */
describe('replay routes', () => {
  let api: ApiTestApp;
  let executionId: string;
  let events: EventView[];

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler,worker,projector' });
    await request(api.http)
      .post('/api/catalog/register')
      .send({ content: noopPlaybook('replay/three', ['a', 'b', 'c']) })
      .expect(201);
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

  const replay = (query: Record<string, string>) =>
    request(api.http)
      .get('/api/replay/state')
      .query({ execution_id: executionId, ...query });

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
    expect(body).toMatchObject({
      reducer_version: expect.any(String),
      upcaster_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      payload_refs: [],
    });
  });

  it('diffs two positions path by path: RUNNING after the first event, COMPLETED after the last', async () => {
    const diff = (from: unknown, to: unknown) =>
      request(api.http).get('/api/replay/diff').query({ execution_id: executionId, from_position: from, to_position: to });
    const body = (await diff(1, events.length).expect(200)).body;
    expect(body.from).toMatchObject({ event_id: events[0]!.event_id, stream_version: 1 });
    expect(body.to).toMatchObject({ event_id: events.at(-1)!.event_id, stream_version: events.length });
    expect(body.changes).toContainEqual({ path: 'execution.status', before: 'RUNNING', after: 'COMPLETED' });
    // A step that had not begun at the first event is a whole new subtree.
    expect(body.changes).toContainEqual({ path: 'steps.steps.c', after: expect.objectContaining({ status: 'COMPLETED' }) });
    expect((await diff(2, 2).expect(200)).body.changes).toEqual([]);
    expect((await diff(0, 2).expect(400)).body.code).toBe('bad_request');
    expect((await diff('x', 2).expect(400)).body.code).toBe('bad_request');
    expect(
      (await request(api.http).get('/api/replay/diff').query({ execution_id: '1', from_position: 1, to_position: 2 }).expect(404)).body
        .code,
    ).toBe('not_found');
  });

  it('pages the events by position, each with its position', async () => {
    expect(events.map((e) => e.position)).toEqual(events.map((_, i) => i + 1));
    const page = (query: Record<string, unknown>) => request(api.http).get(`/api/executions/${executionId}/events`).query(query);
    expect((await page({ after_position: 2, limit: 2 }).expect(200)).body.events.map((e: EventView) => e.event_id)).toEqual([
      events[2]!.event_id,
      events[3]!.event_id,
    ]);
    expect((await page({ after_position: events.length }).expect(200)).body.events).toEqual([]);
    expect((await page({ after_position: -1 }).expect(400)).body.code).toBe('bad_request');
    expect((await page({ after_position: 1, after: events[0]!.event_id }).expect(400)).body.code).toBe('invalid_request');
  });

  it('draws the timeline: one bar per command, with the worker that ran it and the events it began and ended with', async () => {
    const { bars } = (await request(api.http).get(`/api/executions/${executionId}/timeline`).expect(200)).body;
    expect(bars.map((b: { step: string }) => b.step)).toEqual(['a', 'b', 'c']);
    for (const bar of bars) {
      expect(bar).toMatchObject({ kind: 'command', attempt: 1, status: 'COMPLETED', worker_id: expect.any(String) });
      const issuedAt = events[bar.begin.position - 1]!;
      expect(issuedAt.event_type).toBe('command.issued');
      expect(events[bar.end.position - 1]!.event_type).toBe('command.completed');
    }
    expect((await request(api.http).get('/api/executions/1/timeline').expect(404)).body.code).toBe('not_found');
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
