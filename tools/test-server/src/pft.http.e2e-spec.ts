import { demographics, mdsDetail, onePage, pageCount, pftRecords } from './pft-data';
import { startTestServer, type TestServer } from './server';
import { fetchJson } from './testing/fetch-json';

type Row = {
  patient_id: number;
  facility_mapping_id: number;
  page_number?: number;
  assessment_id?: string;
  payload: { data?: unknown[]; paging?: Record<string, unknown> } & Record<string, unknown>;
  is_last_page?: boolean;
};
type Batch = { dataType: string; patientCount: number; rowCount: number; rows: Row[] };

describe('PFT patient-data endpoints (TEST_SERVER.md §9)', () => {
  let server: TestServer;
  const call = <T = unknown>(path: string) => fetchJson<T>(server.url + path);

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  describe('per-patient domain endpoints', () => {
    it('serves one record per page up to the page count, ignoring pageSize', async () => {
      const pages = [];
      for (let page = 1; page <= 4; page += 1) pages.push(await call(`/api/v1/patient/assessments?patientId=3&page=${page}&pageSize=50`));
      expect(pages.map((res) => res.status)).toEqual([200, 200, 200, 200]);
      expect(pages.map((res) => res.body)).toEqual([1, 2, 3, 4].map((page) => onePage('3', 'assessments', page, 4)));
      const past = await call('/api/v1/patient/assessments?patientId=3&page=5');
      expect([past.status, past.body]).toEqual([404, { error: 'page not found' }]);
    });

    it.each([
      ['conditions', 1, 3],
      ['medications', 2, 3],
      ['vital_signs', 1, 1],
    ])('bounds %s pages by pageCount(pid, type, %d, %d)', async (type, lo, hi) => {
      for (const pid of ['1', '2', '1042']) {
        const total = pageCount(pid, type, lo, hi);
        const last = await call(`/api/v1/patient/${type}?patientId=${pid}&page=${total}`);
        expect(last.body).toEqual(onePage(pid, type, total, total));
        expect((await call(`/api/v1/patient/${type}?patientId=${pid}&page=${total + 1}`)).status).toBe(404);
      }
    });

    it('hashes the patient id exactly as sent', async () => {
      const res = await call('/api/v1/patient/demographics?patientId=01');
      expect([res.status, res.body]).toEqual([200, demographics('01')]);
    });
  });

  describe('GET /api/v1/pft/mds/details', () => {
    it('trims the id and answers one row', async () => {
      const res = await call('/api/v1/pft/mds/details?assessmentId=%20MDS-1-p1-0-01%20');
      expect(res.body).toEqual({ rowCount: 1, rows: [{ assessment_id: 'MDS-1-p1-0-01', payload: mdsDetail('MDS-1-p1-0-01') }] });
    });

    it('rejects an empty or blank id with 400', async () => {
      for (const value of ['', '%20%20']) {
        const res = await call(`/api/v1/pft/mds/details?assessmentId=${value}`);
        expect([res.status, res.body]).toEqual([400, { detail: 'assessmentId must contain one assessment id' }]);
      }
    });
  });

  describe('legacy /api/v1/mds routes', () => {
    it('serves assessment ids and details', async () => {
      const ids = await call<{ patientId: string; assessmentIds: string[]; count: number }>('/api/v1/mds/assessment_ids?patientId=1');
      expect(ids.body.count).toBeGreaterThanOrEqual(2);
      expect(ids.body.count).toBeLessThanOrEqual(5);
      expect(ids.body.assessmentIds).toEqual(Array.from({ length: ids.body.count }, (_, k) => `MDS-1-00${k + 1}`));
      expect((await call('/api/v1/mds/assessment/MDS-1-001')).body).toEqual(mdsDetail('MDS-1-001'));
    });
  });

  describe('shared PFT rate limit', () => {
    let limited: TestServer;
    const hit = async (path: string) => (await fetchJson(limited.url + path)).status;

    beforeAll(async () => {
      limited = await startTestServer({ env: { PFT_RATE_LIMIT: 3 } });
    });
    afterAll(() => limited.close());

    it('counts 404 and 400 answers but not 422s, across all PFT endpoints, and skips the batch endpoint', async () => {
      expect(await hit('/api/v1/patient/assessments?page=0&patientId=1')).toBe(422);
      expect(await hit('/api/v1/patient/demographics')).toBe(422);
      expect(await hit('/api/v1/pft/batch/demographics?patientIds=1')).toBe(200);
      expect(await hit('/api/v1/patient/vital_signs?patientId=1&page=2')).toBe(404);
      expect(await hit('/api/v1/pft/mds/details?assessmentId=a,b')).toBe(400);
      expect(await hit('/api/v1/mds/assessment/MDS-1')).toBe(200);
      const rejected = await fetchJson(`${limited.url}/api/v1/patient/conditions?patientId=1`);
      expect([rejected.status, rejected.body, rejected.headers.get('retry-after')]).toEqual([429, { detail: 'Too Many Requests' }, '1']);
      expect(await hit('/api/v1/pft/batch/demographics?patientIds=1')).toBe(200);
    });

    it('checks the rate limit before the page bounds', async () => {
      limited.reset();
      for (let i = 0; i < 3; i += 1) expect(await hit('/api/v1/patient/demographics?patientId=1')).toBe(200);
      expect(await hit('/api/v1/patient/vital_signs?patientId=1&page=2')).toBe(429);
      expect(await hit('/api/v1/pft/mds/details?assessmentId=')).toBe(429);
    });
  });

  describe('GET /api/v1/pft/batch/{data_type}', () => {
    const batch = (query: string) => call<Batch>(`/api/v1/pft/batch/${query}`);

    it('builds one row per page per patient, in input order, for paged types', async () => {
      const res = await batch('assessments?patientIds=3,1&pageSize=2&patientsPerFacility=2');
      expect(res.status).toBe(200);
      expect(res.body.dataType).toBe('assessments');
      expect(res.body.patientCount).toBe(2);
      expect(res.body.rowCount).toBe(6);
      expect(res.body.rows.map((row) => [row.patient_id, row.page_number, row.is_last_page, row.facility_mapping_id])).toEqual([
        [3, 1, false, 2],
        [3, 2, false, 2],
        [3, 3, false, 2],
        [3, 4, true, 2],
        [1, 1, false, 1],
        [1, 2, true, 1],
      ]);
      expect(res.body.rows[3]).toEqual({
        patient_id: 3,
        facility_mapping_id: 2,
        page_number: 4,
        payload: { data: pftRecords('3', 'assessments', 4, 2), paging: { hasMore: false, page: 4, pageSize: 2, total: 8 } },
        is_last_page: true,
      });
    });

    it('uses pageSize 10 and 1000 patients per facility by default', async () => {
      const res = await batch('vital_signs?patientIds=1500');
      expect(res.body.rows).toEqual([
        {
          patient_id: 1500,
          facility_mapping_id: 2,
          page_number: 1,
          payload: { data: pftRecords('1500', 'vital_signs', 1, 10), paging: { hasMore: false, page: 1, pageSize: 10, total: 10 } },
          is_last_page: true,
        },
      ]);
    });

    it('builds demographics and mds rows', async () => {
      const demo = await batch('demographics?patientIds=1,2');
      expect(demo.body).toEqual({
        dataType: 'demographics',
        patientCount: 2,
        rowCount: 2,
        rows: [
          { patient_id: 1, facility_mapping_id: 1, payload: demographics('1') },
          { patient_id: 2, facility_mapping_id: 1, payload: demographics('2') },
        ],
      });
      const mds = await batch('mds?patientIds=1');
      expect(mds.body.rows).toEqual([{ patient_id: 1, facility_mapping_id: 1, assessment_id: 'MDS-1-2', payload: mdsDetail('MDS-1-2') }]);
    });

    it('trims tokens, skips empty ones and reads ids as integers', async () => {
      const res = await batch('demographics?patientIds=%2007%20,,%202,');
      expect(res.body.rows.map((row) => [row.patient_id, row.payload])).toEqual([
        [7, demographics('7')],
        [2, demographics('2')],
      ]);
    });

    it('rejects empty, oversized, malformed id lists and unknown types with 400', async () => {
      const cases: [string, string][] = [
        ['demographics?patientIds=,%20,', 'patientIds must contain at least one patient id'],
        [`demographics?patientIds=${Array.from({ length: 501 }, (_, i) => i + 1).join(',')}`, 'patientIds batch size must be <= 500'],
        ['demographics?patientIds=1,abc', 'patientIds must contain integer patient ids, got "abc"'],
        ['labs?patientIds=1', 'unsupported PFT batch data_type: labs'],
      ];
      for (const [query, detail] of cases) {
        const res = await batch(query);
        expect([res.status, res.body]).toEqual([400, { detail }]);
      }
      expect((await batch(`demographics?patientIds=${Array.from({ length: 500 }, (_, i) => i + 1).join(',')}`)).body.rowCount).toBe(500);
    });
  });
});
