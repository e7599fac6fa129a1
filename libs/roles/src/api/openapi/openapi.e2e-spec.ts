import { playbookSchema } from '@noetl/dsl';
import request from 'supertest';
import { startApiTestApp, type ApiTestApp } from '../testing/api-test-app';

type Operations = Record<string, Record<string, { operationId: string }>>;

describe('the OpenAPI document at /docs-json and the playbook schema', () => {
  let api: ApiTestApp;

  beforeAll(async () => {
    api = await startApiTestApp({ NOETL_AUTH: 'on' });
  });

  afterAll(async () => {
    await api?.close();
  });

  it('names each operation for what it does, once', async () => {
    const doc = await request(api.http).get('/docs-json').expect(200);
    const ids = Object.values(doc.body.paths as Operations).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    expect(ids.filter((id) => !/^[a-z][A-Za-z]+$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    const paths = doc.body.paths as Operations;
    expect(paths['/api/execute']?.['post']?.operationId).toBe('executePlaybook');
    expect(paths['/api/executions']?.['get']?.operationId).toBe('listExecutions');
    expect(paths['/api/executions/{id}']?.['get']?.operationId).toBe('getExecution');
    expect(paths['/api/catalog/register']?.['post']?.operationId).toBe('registerPlaybook');
  });

  it('describes the bearer scheme as an API key, not a JWT', async () => {
    const doc = await request(api.http).get('/docs-json').expect(200);
    expect(doc.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'API key' });
  });

  it('serves the playbook JSON Schema to anyone at /api/schema/playbook', async () => {
    const res = await request(api.http).get('/api/schema/playbook').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/schema\+json/);
    expect(JSON.parse(res.text)).toEqual(playbookSchema());
  });
});
