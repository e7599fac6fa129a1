import { startTestServer, type TestServer } from './server';
import { fetchJson } from './testing/fetch-json';

type Issues = { detail: { type: string; loc: string[] }[] };

describe('FastAPI-style framework errors (TEST_SERVER.md §0)', () => {
  let server: TestServer;
  const call = <T = unknown>(path: string, init?: RequestInit) => fetchJson<T>(server.url + path, init);

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('answers an unknown path with 404 {"detail":"Not Found"}', async () => {
    for (const path of ['/nope', '/api/v1/patient/unknown', '/api/v1/heavy/stats/extra', '/api/v1/pft/batch']) {
      const res = await call(path);
      expect([path, res.status, res.body]).toEqual([path, 404, { detail: 'Not Found' }]);
      expect(res.headers.get('content-type')).toBe('application/json');
    }
  });

  it('answers a wrong method with 405 {"detail":"Method Not Allowed"} and an Allow header', async () => {
    const post = await call('/health', { method: 'POST' });
    expect([post.status, post.body]).toEqual([405, { detail: 'Method Not Allowed' }]);
    expect(post.headers.get('allow')).toBe('GET, HEAD');

    const get = await call('/api/v1/flaky/reset');
    expect([get.status, get.body]).toEqual([405, { detail: 'Method Not Allowed' }]);
    expect(get.headers.get('allow')).toBe('POST');

    expect((await call('/api/v1/assessments', { method: 'DELETE' })).status).toBe(405);
  });

  it('serves HEAD through the GET route without a body', async () => {
    const res = await fetch(`${server.url}/health`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it('rejects non base-10 integers with 422 and a list of issues', async () => {
    for (const value of ['2.0', 'abc', '', '0x2', '1e1']) {
      const res = await call<Issues>(`/api/v1/assessments?page=${encodeURIComponent(value)}`);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ type: 'int_parsing', loc: ['query', 'page'] })]);
    }
    expect((await call('/api/v1/users?offset=1.5')).status).toBe(422);
    expect((await call('/api/v1/reference-chain/detail/abc')).status).toBe(422);
  });

  it('accepts integers and decimals for float parameters', async () => {
    expect((await call('/api/v1/concurrency/probe?delay_seconds=0')).status).toBe(200);
    expect((await call('/api/v1/concurrency/probe?delay_seconds=0.01')).status).toBe(200);
    expect((await call('/api/v1/concurrency/probe?delay_seconds=soon')).status).toBe(422);
  });

  it('rejects values outside ge/le bounds with 422', async () => {
    const over = await call<Issues>('/api/v1/concurrency/probe?delay_seconds=300.5');
    expect([over.status, over.body.detail[0]?.type]).toEqual([422, 'less_than_equal']);
    const under = await call<Issues>('/api/v1/concurrency/probe?delay_seconds=-1');
    expect([under.status, under.body.detail[0]?.type]).toEqual([422, 'greater_than_equal']);
    expect((await call('/api/v1/patient/assessments?patientId=1&page=0')).status).toBe(422);
    expect((await call('/api/v1/patient-records?patientId=P-1&pageSize=0')).status).toBe(422);
    expect((await call('/api/v1/pft/batch/demographics?patientIds=1&patientsPerFacility=0')).status).toBe(422);
  });

  it('rejects a missing required parameter with 422', async () => {
    for (const path of ['/api/v1/patient/demographics', '/api/v1/pft/mds/details', '/api/v1/pft/batch/mds', '/api/v1/patient-records']) {
      const res = await call<Issues>(path);
      expect([path, res.status, res.body.detail[0]?.type]).toEqual([path, 422, 'missing']);
    }
  });

  it('lists every invalid parameter in one 422', async () => {
    const res = await call<Issues>('/api/v1/patient/conditions?page=x');
    expect(res.body.detail.map((issue) => issue.loc[1])).toEqual(['patientId', 'page']);
  });

  it('uses the last value of a repeated parameter, as Starlette does', async () => {
    const res = await call<{ paging: { page: number } }>('/api/v1/assessments?page=1&page=3');
    expect(res.body.paging.page).toBe(3);
  });

  it('passes an empty string parameter through as the empty string', async () => {
    const res = await call<{ label: string }>('/api/v1/concurrency/probe?label=');
    expect(res.body.label).toBe('');
  });
});
