import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

const SECRET = 'p4ss-never-echoed';

describe('credential routes', () => {
  let api: ApiTestApp;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
  });

  afterAll(async () => {
    await api?.close();
  });

  it('stores, lists, shows, replaces and deletes a credential without ever returning its data', async () => {
    const responses: request.Response[] = [];
    const created = await request(api.http).post('/api/credentials').send({ name: 'pg_main', type: 'postgres', data: { password: SECRET } }).expect(201);
    responses.push(created);
    expect(created.body).toEqual({ name: 'pg_main', type: 'postgres', created_at: expect.any(String), updated_at: expect.any(String) });

    responses.push(await request(api.http).get('/api/credentials').expect(200));
    expect(responses.at(-1)!.body).toEqual({ credentials: [created.body] });
    responses.push(await request(api.http).get('/api/credentials/pg_main').expect(200));
    expect(responses.at(-1)!.body).toEqual(created.body);

    responses.push(await request(api.http).post('/api/credentials').send({ name: 'pg_main', type: 'postgres', data: { password: `${SECRET}2` } }).expect(201));
    expect(responses.at(-1)!.body.created_at).toBe(created.body.created_at);

    for (const response of responses) expect(response.text).not.toContain(SECRET);

    await request(api.http).delete('/api/credentials/pg_main').expect(204);
    expect((await request(api.http).get('/api/credentials/pg_main').expect(404)).body.code).toBe('not_found');
    expect((await request(api.http).delete('/api/credentials/pg_main').expect(404)).body.code).toBe('not_found');
  });

  it.each([
    ['a name with a space', { name: 'pg main', type: 'postgres', data: {} }, 'invalid_request'],
    ['data that is not an object', { name: 'pg', type: 'postgres', data: 'password' }, 'bad_request'],
    ['no type', { name: 'pg', data: {} }, 'bad_request'],
    ['an unknown field', { name: 'pg', type: 'postgres', data: {}, secret: SECRET }, 'bad_request'],
  ])('answers %s with 400 %s', async (_what, body, code) => {
    const res = await request(api.http).post('/api/credentials').send(body).expect(400);
    expect(res.body.code).toBe(code);
    expect(res.text).not.toContain(SECRET);
  });
});
