import { startTestServer, type TestServer } from './server';
import { fetchJson } from './testing/fetch-json';

type Bundle = {
  resourceType: string;
  type: string;
  total: number;
  link: { relation: string; url: string }[];
  entry: { fullUrl: string; resource: Record<string, unknown> & { id: string; _payload: string } }[];
  meta: { patientId: string; page: number; pageSize: number; totalPages: number; delaySeconds: number; estimatedResponseKB: number };
};

describe('FHIR-like patient records (TEST_SERVER.md §10)', () => {
  let server: TestServer;
  const call = <T = Bundle>(path: string) => fetchJson<T>(server.url + path);

  beforeAll(async () => {
    server = await startTestServer({
      env: { PATIENT_RECORDS_MIN_DELAY: 0, PATIENT_RECORDS_MAX_DELAY: 0.01, PATIENT_RECORDS_PAYLOAD_KB: 4 },
    });
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  it.each([
    ['P-0001', 5],
    ['P-0002', 3],
    ['P-0003', 3],
  ])('gives %s %d pages, then a 404', async (patientId, pages) => {
    const last = await call(`/api/v1/patient-records?patientId=${patientId}&page=${pages}&pageSize=1`);
    expect(last.body.meta.totalPages).toBe(pages);
    expect(last.body.total).toBe(pages);
    expect(last.body.link.map((l) => l.relation)).toEqual(['self']);
    const past = await call(`/api/v1/patient-records?patientId=${patientId}&page=${pages + 1}&pageSize=1`);
    expect([past.status, past.body]).toEqual([404, { detail: `Page ${pages + 1} does not exist for patient ${patientId}` }]);
  });

  it('builds a searchset Bundle of MedicationStatement entries with self and next links', async () => {
    const res = await call('/api/v1/patient-records?patientId=P-0002&page=2&pageSize=3&payload_kb=1');
    expect(res.status).toBe(200);
    const { entry, link, meta, ...rest } = res.body;
    expect(rest).toEqual({ resourceType: 'Bundle', type: 'searchset', total: 9 });
    expect(link).toEqual([
      { relation: 'self', url: `${server.url}/api/v1/patient-records?patientId=P-0002&page=2&pageSize=3` },
      { relation: 'next', url: `${server.url}/api/v1/patient-records?patientId=P-0002&page=3&pageSize=3` },
    ]);
    expect(entry.map((e) => e.fullUrl)).toEqual([
      'MedicationStatement/P-0002-p2-e3',
      'MedicationStatement/P-0002-p2-e4',
      'MedicationStatement/P-0002-p2-e5',
    ]);
    expect(entry[0]).toEqual({
      fullUrl: 'MedicationStatement/P-0002-p2-e3',
      resource: {
        resourceType: 'MedicationStatement',
        id: 'P-0002-p2-e3',
        status: 'active',
        subject: { reference: 'Patient/P-0002' },
        medicationCodeableConcept: {
          coding: [{ system: 'http://www.nlm.nih.gov/research/umls/rxnorm', code: '1003', display: 'Drug-3' }],
          text: 'Medication record for patient P-0002',
        },
        effectivePeriod: { start: '2024-01-01', end: '2024-12-31' },
        dosage: [{ text: '1 tablet daily', timing: { repeat: { frequency: 1, period: 1, periodUnit: 'd' } } }],
        _payload: 'M'.repeat(100),
      },
    });
    expect(meta).toEqual({
      patientId: 'P-0002',
      page: 2,
      pageSize: 3,
      totalPages: 3,
      delaySeconds: expect.any(Number),
      estimatedResponseKB: 0,
    });
  });

  it('sizes the padding as max(100, floor(payload_kb*1024/pageSize) - 600)', async () => {
    const page = await call('/api/v1/patient-records?patientId=P-0001&pageSize=10&payload_kb=100');
    expect(page.body.entry).toHaveLength(10);
    expect(page.body.entry[0]?.resource._payload).toBe('M'.repeat(9640));
    expect(page.body.meta.estimatedResponseKB).toBe(94);

    const envDefault = await call('/api/v1/patient-records?patientId=P-0001&pageSize=2');
    expect(envDefault.body.entry[0]?.resource._payload).toHaveLength(1448);
  });

  it('uses page 1 and page size 10 by default', async () => {
    const res = await call('/api/v1/patient-records?patientId=P-0001');
    expect([res.body.meta.page, res.body.meta.pageSize, res.body.entry.length, res.body.total]).toEqual([1, 10, 10, 50]);
    expect(res.body.entry[9]?.resource.id).toBe('P-0001-p1-e9');
  });

  it('sleeps uniform(min_delay, max_delay) without blocking other requests', async () => {
    const started = Date.now();
    const answered: string[] = [];
    const slow = call('/api/v1/patient-records?patientId=P-0001&pageSize=1&min_delay=1&max_delay=1').finally(() => answered.push('slow'));
    const health = await fetchJson(`${server.url}/health`).finally(() => answered.push('health'));
    expect(health.status).toBe(200);
    const res = await slow;
    // Health was answered while the records slept (a 1 s margin, whatever the machine's load).
    expect(answered).toEqual(['health', 'slow']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(995);
    expect(res.body.meta.delaySeconds).toBe(1);
  });

  it('rejects past rate_limit with 429 and Retry-After: 1, without recording or delaying', async () => {
    const quick = '/api/v1/patient-records?patientId=P-0003&pageSize=1&rate_limit=2';
    expect((await call(quick)).status).toBe(200);
    expect((await call(quick)).status).toBe(200);
    const started = Date.now();
    const rejected = await call(`${quick}&min_delay=5&max_delay=5`);
    expect(Date.now() - started).toBeLessThan(1000);
    expect([rejected.status, rejected.body, rejected.headers.get('retry-after')]).toEqual([
      429,
      { error: 'Too Many Requests', message: 'Rate limit exceeded' },
      '1',
    ]);
    expect((await call(`${quick.replace('rate_limit=2', 'rate_limit=3')}`)).status).toBe(200);
  });

  it('keeps its window apart from the PFT window', async () => {
    expect((await call('/api/v1/patient-records?patientId=P-0003&pageSize=1&rate_limit=1')).status).toBe(200);
    expect((await fetchJson(`${server.url}/api/v1/patient/demographics?patientId=1`)).status).toBe(200);
  });

  it('validates its query parameters', async () => {
    expect((await call('/api/v1/patient-records?patientId=P-1&page=0')).status).toBe(422);
    expect((await call('/api/v1/patient-records?patientId=P-1&min_delay=x')).status).toBe(422);
    expect((await call('/api/v1/patient-records?patientId=P-1&payload_kb=1.5')).status).toBe(422);
  });
});
