import request from 'supertest';
import { noopPlaybook, startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

describe('catalog routes', () => {
  let api: ApiTestApp;

  beforeAll(async () => {
    api = await startApiTestApp();
  });

  afterAll(async () => {
    await api?.close();
  });

  it('registers a playbook, keeps its version for identical content, and numbers a change as the next version', async () => {
    const first = await request(api.http)
      .post('/api/catalog/register')
      .send({ content: noopPlaybook('cat/versions') })
      .expect(201);
    expect(first.body).toEqual({ catalog_id: expect.stringMatching(/^\d+$/), path: 'cat/versions', version: 1 });
    const again = await request(api.http)
      .post('/api/catalog/register')
      .send({ content: noopPlaybook('cat/versions') })
      .expect(201);
    expect(again.body).toEqual(first.body);
    const second = await request(api.http)
      .post('/api/catalog/register')
      .send({ content: noopPlaybook('cat/versions', ['a', 'b']) })
      .expect(201);
    expect(second.body).toMatchObject({ path: 'cat/versions', version: 2 });

    const versions = await request(api.http).get('/api/catalog/versions').query({ path: 'cat/versions' }).expect(200);
    expect(versions.body).toEqual({
      path: 'cat/versions',
      versions: [expect.objectContaining({ version: 2, catalog_id: second.body.catalog_id }), expect.objectContaining({ version: 1 })],
    });
    const list = await request(api.http).get('/api/catalog').expect(200);
    expect(list.body.entries).toContainEqual({
      catalog_id: second.body.catalog_id,
      path: 'cat/versions',
      version: 2,
      name: 'cat_versions',
      created_at: expect.any(String),
    });
  });

  it('shows one version of a playbook: its YAML as registered and its graph of steps and arcs', async () => {
    await request(api.http)
      .post('/api/catalog/register')
      .send({ content: noopPlaybook('cat/source') })
      .expect(201);
    await request(api.http)
      .post('/api/catalog/register')
      .send({ content: noopPlaybook('cat/source', ['a', 'b']) })
      .expect(201);
    const latest = (await request(api.http).get('/api/catalog/playbook').query({ path: 'cat/source' }).expect(200)).body;
    expect(latest).toMatchObject({ path: 'cat/source', version: 2, content: noopPlaybook('cat/source', ['a', 'b']) });
    expect(latest.graph).toEqual({
      entry: 'a',
      steps: [
        { step: 'a', tools: ['noop'], loop: false },
        { step: 'b', tools: ['noop'], loop: false },
      ],
      arcs: [{ from: 'a', to: 'b' }],
    });
    const first = (await request(api.http).get('/api/catalog/playbook').query({ path: 'cat/source', version: 1 }).expect(200)).body;
    expect(first).toMatchObject({ version: 1, content: noopPlaybook('cat/source') });
    expect((await request(api.http).get('/api/catalog/playbook').query({ path: 'cat/source', version: 3 }).expect(404)).body.code).toBe(
      'not_found',
    );
    expect((await request(api.http).get('/api/catalog/playbook').query({ path: 'cat/source', version: 'two' }).expect(400)).body.code).toBe(
      'bad_request',
    );
  });

  it.each(['application/yaml', 'application/x-yaml', 'text/yaml'])('registers the raw YAML body of a %s request', async (type) => {
    const path = `cat/raw_${type.replace(/\W/g, '_')}`;
    const res = await request(api.http).post('/api/catalog/register').set('Content-Type', type).send(noopPlaybook(path)).expect(201);
    expect(res.body).toMatchObject({ path, version: 1 });
  });

  it('rejects YAML that does not parse with 422 and the line of the problem', async () => {
    const content = ['apiVersion: noetl.io/v2', 'kind: Playbook', 'metadata:', '  name: broken', 'workflow: [', '  - step: a'].join('\n');
    const res = await request(api.http).post('/api/catalog/register').send({ content }).expect(422);
    expect(res.body).toEqual({ code: 'invalid_playbook', message: expect.any(String), errors: expect.any(Array) });
    expect(res.body.errors[0]).toEqual(expect.objectContaining({ line: expect.any(Number), message: expect.any(String) }));
  });

  it('rejects an arc to an unknown step with 422 naming the path and line, and stores nothing', async () => {
    const content = noopPlaybook('cat/bad_arc').replace('    tool: {kind: noop}', '    tool: {kind: noop}\n    next: nowhere');
    const res = await request(api.http).post('/api/catalog/register').set('Content-Type', 'application/yaml').send(content).expect(422);
    expect(res.body.errors).toEqual([{ path: 'workflow[0].next', line: 9, column: expect.any(Number), message: 'unknown step "nowhere"' }]);
    expect((await request(api.http).get('/api/catalog/versions').query({ path: 'cat/bad_arc' }).expect(200)).body.versions).toEqual([]);
  });

  it('answers a register request without content, and a versions request without path, with 400', async () => {
    expect((await request(api.http).post('/api/catalog/register').send({}).expect(400)).body.code).toBe('bad_request');
    expect(
      (await request(api.http).post('/api/catalog/register').set('Content-Type', 'application/yaml').send('').expect(400)).body.code,
    ).toBe('bad_request');
    expect((await request(api.http).get('/api/catalog/versions').expect(400)).body.code).toBe('bad_request');
  });
});
