import { startTestServer, type TestServer } from './server';
import { fetchJson, postJson } from './testing/fetch-json';

/** TEST_SERVER.md §12, the conformance checklist, item by item. */
describe('test server conformance checklist (TEST_SERVER.md §12)', () => {
  let server: TestServer;
  const call = <T = unknown>(path: string) => fetchJson<T>(server.url + path);

  beforeAll(async () => {
    server = await startTestServer({ port: 0 });
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  it('1. GET /health answers {"status":"ok"}', async () => {
    const res = await call('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('2. /assessments?page=4 holds ids 31-35 and no more pages', async () => {
    const res = await call<{ data: { id: number }[]; paging: { hasMore: boolean } }>('/api/v1/assessments?page=4');
    expect(res.body.data.map((item) => item.id)).toEqual([31, 32, 33, 34, 35]);
    expect(res.body.paging.hasMore).toBe(false);
  });

  it('3. /events?limit=10&cursor=NA== holds ids 31-35 and a null next_cursor', async () => {
    const res = await call<{ events: { id: number }[]; next_cursor: string | null }>('/api/v1/events?limit=10&cursor=NA==');
    expect(res.body.events.map((event) => event.id)).toEqual([31, 32, 33, 34, 35]);
    expect(res.body).toHaveProperty('next_cursor', null);
  });

  it('4. after a flaky reset, page 2 with fail_on=2 fails once and then succeeds', async () => {
    expect((await postJson(`${server.url}/api/v1/flaky/reset`)).status).toBe(200);
    const first = await call('/api/v1/flaky?page=2&fail_on=2');
    const second = await call('/api/v1/flaky?page=2&fail_on=2');
    expect([first.status, first.body]).toEqual([500, { detail: 'Simulated failure' }]);
    expect(second.status).toBe(200);
  });

  it('5. /rate-limited with requests_per_second=1 accepts page 1 then rejects page 2 with Retry-After: 1', async () => {
    const first = await call('/api/v1/rate-limited?requests_per_second=1&page=1');
    const second = await call('/api/v1/rate-limited?requests_per_second=1&page=2');
    expect(first.status).toBe(200);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
  });

  it('6. /errors?error_type=auth answers 401', async () => {
    const res = await call('/api/v1/errors?error_type=auth');
    expect([res.status, res.body]).toEqual([401, { detail: 'Unauthorized - invalid credentials' }]);
  });

  it('7. five concurrent one-second probes after a reset overlap completely', async () => {
    await postJson(`${server.url}/api/v1/concurrency/reset`);
    const probes = await Promise.all(Array.from({ length: 5 }, () => call('/api/v1/concurrency/probe?delay_seconds=1')));
    expect(probes.every((probe) => probe.status === 200)).toBe(true);
    const stats = await call<{ max_active: number }>('/api/v1/concurrency/stats');
    expect(stats.body.max_active).toBe(5);
  });

  it('8. /patient/vital_signs page 2 answers 404 {"error":"page not found"}', async () => {
    const res = await call('/api/v1/patient/vital_signs?patientId=1&page=2');
    expect([res.status, res.body]).toEqual([404, { error: 'page not found' }]);
  });

  it('9. /pft/mds/details with two ids answers 400', async () => {
    const res = await call('/api/v1/pft/mds/details?assessmentId=a,b');
    expect([res.status, res.body]).toEqual([400, { detail: 'assessmentId must contain exactly one assessment id' }]);
  });

  it('10. 51 fast PFT requests within one second meet at least one 429 with Retry-After: 1', async () => {
    const responses = await Promise.all(Array.from({ length: 51 }, () => call('/api/v1/patient/demographics?patientId=1')));
    const rejected = responses.filter((res) => res.status === 429);
    expect(rejected.length).toBeGreaterThanOrEqual(1);
    expect(rejected[0]?.headers.get('retry-after')).toBe('1');
    expect(rejected[0]?.body).toEqual({ detail: 'Too Many Requests' });
    expect(responses.filter((res) => res.status === 200)).toHaveLength(50);
  });

  it('11. the §9.2 test vectors reproduce over HTTP', async () => {
    const demographics = await call('/api/v1/patient/demographics?patientId=1');
    expect(demographics.body).toEqual({
      patientId: '1',
      firstName: 'First571',
      lastName: 'Last353',
      dob: '1971-12-17',
      gender: 'F',
      status: 'active',
    });

    const assessments = await call<{ data: unknown[]; paging: { total: number } }>('/api/v1/patient/assessments?patientId=1');
    expect(assessments.body.data).toEqual([
      {
        id: 'ASSE-1-p1-i0',
        patientId: '1',
        dataType: 'assessments',
        value: 76,
        mdsAssessmentIds: ['MDS-1-p1-0-01', 'MDS-1-p1-0-02', 'MDS-1-p1-0-03', 'MDS-1-p1-0-04', 'MDS-1-p1-0-05'],
        mdsCount: 5,
      },
    ]);
    expect(assessments.body.paging.total).toBe(2);

    const conditions = await call<{ data: unknown[]; paging: { total: number } }>('/api/v1/patient/conditions?patientId=1');
    expect(conditions.body.data).toEqual([{ id: 'COND-1-p1-i0', patientId: '1', dataType: 'conditions', value: 17 }]);
    expect(conditions.body.paging.total).toBe(3);

    const medications = await call<{ paging: { total: number } }>('/api/v1/patient/medications?patientId=1');
    expect(medications.body.paging.total).toBe(2);
    const assessments3 = await call<{ paging: { total: number } }>('/api/v1/patient/assessments?patientId=3');
    expect(assessments3.body.paging.total).toBe(4);

    type Detail = { rows: { payload: { sections: { questions: { responses: { responseValue: string }[] }[] }[] } }[] };
    const detail = await call<Detail>('/api/v1/pft/mds/details?assessmentId=MDS-1-p1-0-01');
    const values = detail.body.rows[0]!.payload.sections.map((s) => s.questions.map((q) => q.responses[0]!.responseValue));
    expect(values).toEqual([
      ['3', '4', '0'],
      ['3', '4', '0'],
      ['3', '4', '0'],
    ]);
  });
});
