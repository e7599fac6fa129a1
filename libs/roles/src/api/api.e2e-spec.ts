import request from 'supertest';
import { startApiTestApp, type ApiTestApp } from './testing/api-test-app';

/** The routes of DESIGN.md s6 this app serves, as Swagger names them. */
const ROUTES: Record<string, string[]> = {
  '/health/live': ['get'],
  '/health/ready': ['get'],
  '/metrics': ['get'],
  '/api/schema/playbook': ['get'],
  '/api/catalog/register': ['post'],
  '/api/catalog': ['get'],
  '/api/catalog/versions': ['get'],
  '/api/catalog/playbook': ['get'],
  '/api/execute': ['post'],
  '/api/executions': ['get'],
  '/api/executions/counts': ['get'],
  '/api/executions/{id}': ['get'],
  '/api/executions/{id}/events': ['get'],
  '/api/executions/{id}/timeline': ['get'],
  '/api/executions/{id}/cancel': ['post'],
  '/api/executions/{id}/signals/{name}': ['post'],
  '/api/schedules': ['post', 'get'],
  '/api/schedules/{id}': ['get', 'patch', 'delete'],
  '/api/schedules/{id}/trigger': ['post'],
  '/api/commands/{id}/claim': ['post'],
  '/api/commands/{id}/heartbeat': ['post'],
  '/api/commands/{id}/partial': ['post'],
  '/api/commands/{id}/stream-backlog': ['post'],
  '/api/commands/{id}/complete': ['post'],
  '/api/commands/{id}/fail': ['post'],
  '/api/commands/{id}/child': ['post'],
  '/api/commands/{id}/credential': ['post'],
  '/api/commands/{id}/release': ['post'],
  '/api/events': ['post'],
  '/api/stages/{id}/frames/claim': ['post'],
  '/api/children': ['post'],
  '/api/children/{id}/outcome': ['post'],
  '/api/frames/{id}/heartbeat': ['post'],
  '/api/frames/{id}/commit': ['post'],
  '/api/frames/{id}/fail': ['post'],
  '/api/frames/{id}/credential': ['post'],
  '/api/frames/{id}/release': ['post'],
  '/api/replay/state': ['get'],
  '/api/executions/{id}/verify': ['get'],
  '/api/executions/{id}/rerun': ['post'],
  '/api/credentials/{name}/uses': ['get'],
  '/api/settings/credentials': ['get', 'put'],
  '/api/replay/diff': ['get'],
  '/api/workers': ['get'],
  '/api/workers/{id}/heartbeat': ['post'],
  '/api/workers/ledger': ['get'],
  '/api/admin/stuck': ['get'],
  '/api/admin/commands/{id}/reclaim': ['post'],
  '/api/admin/commands/{id}/fail': ['post'],
  '/api/admin/frames/{id}/reclaim': ['post'],
  '/api/admin/frames/{id}/fail': ['post'],
  '/api/admin/executions/{id}/finalize': ['post'],
  '/api/admin/executions/{id}/purge': ['post'],
  '/api/admin/executions/{id}/cancel': ['post'],
  '/api/credentials': ['post', 'get'],
  '/api/credentials/{name}': ['get', 'delete'],
  '/api/auth/me': ['get'],
  '/api/auth/sign-in-options': ['get'],
  '/api/keys': ['post', 'get'],
  '/api/keys/{id}': ['delete'],
};

/** POST routes whose body is optional or none (a trigger takes nothing). */
const POSTS_WITHOUT_BODY_DTO = new Set(['/api/executions/{id}/cancel', '/api/schedules/{id}/trigger']);

interface Operation {
  summary?: string;
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
}

describe('api app', () => {
  let api: ApiTestApp;

  beforeAll(async () => {
    api = await startApiTestApp();
  });

  afterAll(async () => {
    await api?.close();
  });

  it('answers liveness and readiness with the database up, and checks no Redis or NATS it is not configured with', async () => {
    await request(api.http).get('/health/live').expect(200);
    const ready = await request(api.http).get('/health/ready').expect(200);
    expect(ready.body.details).toEqual({ database: { status: 'up' } });
  });

  it('describes every route in Swagger, each with a summary, a success response and a documented body', async () => {
    const doc = await request(api.http).get('/docs-json').expect(200);
    const paths = doc.body.paths as Record<string, Record<string, Operation>>;
    expect(Object.keys(paths).sort()).toEqual(Object.keys(ROUTES).sort());
    for (const [path, methods] of Object.entries(ROUTES)) {
      expect(Object.keys(paths[path]!).sort()).toEqual([...methods].sort());
      for (const method of methods) {
        const operation = paths[path]![method]!;
        expect({ path, method, summary: operation.summary }).toEqual({ path, method, summary: expect.any(String) });
        expect(Object.keys(operation.responses).some((status) => status.startsWith('2'))).toBe(true);
        if (method === 'post' && !POSTS_WITHOUT_BODY_DTO.has(path)) {
          expect(operation.requestBody?.content['application/json']?.schema.$ref).toMatch(/^#\/components\/schemas\/\w+Dto$/);
        }
      }
    }
    expect(Object.keys(paths['/api/catalog/register']!.post!.requestBody!.content)).toEqual(
      expect.arrayContaining(['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml']),
    );
  });

  it('serves Prometheus metrics', async () => {
    const res = await request(api.http).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toContain('# TYPE noetl_executions_started_total counter');
  });

  it('answers an unknown route with the one error body', async () => {
    const res = await request(api.http).get('/api/nowhere').expect(404);
    expect(res.body).toEqual({ code: 'not_found', message: 'Cannot GET /api/nowhere' });
  });

  it('answers malformed JSON with 400 bad_request', async () => {
    const res = await request(api.http).post('/api/execute').set('Content-Type', 'application/json').send('{"path": "a",').expect(400);
    expect(res.body).toEqual({ code: 'bad_request', message: expect.any(String) });
  });

  it('answers an unknown field with 400 naming it', async () => {
    const res = await request(api.http).post('/api/execute').send({ path: 'a', paylaod: {} }).expect(400);
    expect(res.body).toMatchObject({ code: 'bad_request', details: ['property paylaod should not exist'] });
  });

  it('takes worker reports far larger than the 100 kB express default and than the input limit of user routes', async () => {
    const result = { blob: 'x'.repeat(2 * 1024 * 1024) };
    const res = await request(api.http)
      .post('/api/commands/1/complete')
      .send({ worker_id: 'w', lease_token: 'x'.repeat(32), result })
      .expect(404);
    expect(res.body.code).toBe('not_found');
    expect((await request(api.http).post('/api/execute').send({ path: 'not/registered', payload: result })).status).toBe(413);
  });

  it('without NOETL_ENCRYPTION_KEY lists credentials but refuses to store one (503 credentials_locked)', async () => {
    expect((await request(api.http).get('/api/credentials').expect(200)).body).toEqual({ credentials: [] });
    const res = await request(api.http)
      .post('/api/credentials')
      .send({ name: 'pg', type: 'postgres', data: { password: 'x' } })
      .expect(503);
    expect(res.body).toEqual({ code: 'credentials_locked', message: expect.stringContaining('NOETL_ENCRYPTION_KEY') });
  });
});
