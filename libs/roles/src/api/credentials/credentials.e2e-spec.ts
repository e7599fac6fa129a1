import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { waitFor } from '../../../../../test/support/wait-for';
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
    const created = await request(api.http)
      .post('/api/credentials')
      .send({ name: 'pg_main', type: 'postgres', data: { password: SECRET } })
      .expect(201);
    responses.push(created);
    expect(created.body).toEqual({
      name: 'pg_main',
      type: 'postgres',
      allowed_paths: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    responses.push(await request(api.http).get('/api/credentials').expect(200));
    expect(responses.at(-1)!.body).toEqual({ credentials: [created.body] });
    responses.push(await request(api.http).get('/api/credentials/pg_main').expect(200));
    expect(responses.at(-1)!.body).toEqual(created.body);

    responses.push(
      await request(api.http)
        .post('/api/credentials')
        .send({ name: 'pg_main', type: 'postgres', data: { password: `${SECRET}2` } })
        .expect(201),
    );
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

/** A playbook at `path` whose javascript step reads the credential `tok` through its keychain, resolved at the worker. */
const keychainPlaybook = (path: string) => `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: ${path.replace(/\W/g, '_')}, path: ${path}}
keychain:
  - {name: k, credential: tok}
workflow:
  - step: use
    tool: {kind: javascript, code: "return {length: input.t.length}", input: {t: "{{ keychain.k.token }}"}}
`;

/** Issue 25 item 6: a credential bound to playbooks (allowed_paths), refused to any other, every use audited. */
describe('credentials bound to playbooks', () => {
  let api: ApiTestApp;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_ROLES: 'api,scheduler,worker', NOETL_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    for (const path of ['etl/bound', 'scratch/other'])
      await request(api.http)
        .post('/api/catalog/register')
        .send({ content: keychainPlaybook(path) })
        .expect(201);
  });

  afterAll(async () => {
    await api?.close();
  });

  const run = async (path: string) => {
    const id: string = (await request(api.http).post('/api/execute').send({ path }).expect(201)).body.execution_id;
    return waitFor(
      async () => {
        const detail = (await request(api.http).get(`/api/executions/${id}`).expect(200)).body;
        return detail.status === 'RUNNING'
          ? undefined
          : (detail as { execution_id: string; status: string; error: { message: string } | null });
      },
      { timeoutMs: 20_000 },
    );
  };

  it('runs the playbooks it is bound to, refuses the others with credential_not_allowed, and lists every use', async () => {
    const stored = await request(api.http)
      .post('/api/credentials')
      .send({ name: 'tok', type: 'http', data: { token: SECRET }, allowed_paths: ['etl/**'] })
      .expect(201);
    expect(stored.body.allowed_paths).toEqual(['etl/**']);
    const bound = await run('etl/bound');
    expect(bound.status).toBe('COMPLETED');
    const other = await run('scratch/other');
    expect(other.status).toBe('FAILED');
    expect(other.error?.message).toContain('credential "tok" is not bound to playbook "scratch/other" (allowed_paths: etl/**)');
    const uses = (await request(api.http).get('/api/credentials/tok/uses').expect(200)).body.uses;
    expect(uses).toEqual([
      expect.objectContaining({ name: 'tok', execution_id: bound.execution_id, path: 'etl/bound', step: 'use', holder_kind: 'command' }),
    ]);
  });

  it('refuses a credential that names no playbooks once the tenant requires binding', async () => {
    await request(api.http)
      .post('/api/credentials')
      .send({ name: 'tok', type: 'http', data: { token: SECRET } })
      .expect(201);
    expect((await run('etl/bound')).status).toBe('COMPLETED');
    expect((await request(api.http).put('/api/settings/credentials').send({ require_binding: true }).expect(200)).body).toEqual({
      require_binding: true,
    });
    const refused = await run('etl/bound');
    expect(refused.status).toBe('FAILED');
    expect(refused.error?.message).toContain('this tenant requires binding');
    expect((await request(api.http).put('/api/settings/credentials').send({ require_binding: 'yes' }).expect(400)).body.code).toBe(
      'bad_request',
    );
  });
});
