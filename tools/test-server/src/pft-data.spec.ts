import { md5mod } from './md5int';
import { demographics, facility, mdsDetail, onePage, pageCount, pftRecords } from './pft-data';

describe('PFT deterministic helpers (TEST_SERVER.md §9.2 test vectors)', () => {
  it.each([
    ['1', 'assessments', 2, 4, 2],
    ['1', 'conditions', 1, 3, 3],
    ['1', 'medications', 2, 3, 2],
    ['3', 'assessments', 2, 4, 4],
  ])('pageCount(%j, %j, %d, %d) is %d', (pid, type, lo, hi, expected) => {
    expect(pageCount(pid, type, lo, hi)).toBe(expected);
  });

  it('builds assessment records with their MDS assessment ids', () => {
    expect(JSON.stringify(pftRecords('1', 'assessments', 1, 1))).toBe(
      '[{"id":"ASSE-1-p1-i0","patientId":"1","dataType":"assessments","value":76,' +
        '"mdsAssessmentIds":["MDS-1-p1-0-01","MDS-1-p1-0-02","MDS-1-p1-0-03","MDS-1-p1-0-04","MDS-1-p1-0-05"],"mdsCount":5}]',
    );
  });

  it('builds plain records for the other types', () => {
    expect(pftRecords('1', 'conditions', 1, 1)).toEqual([{ id: 'COND-1-p1-i0', patientId: '1', dataType: 'conditions', value: 17 }]);
    expect(pftRecords('2', 'vital_signs', 1, 1)[0]?.id).toBe('VITA-2-p1-i0');
    expect(pftRecords('2', 'medications', 3, 1)[0]?.id).toBe('MEDI-2-p3-i0');
  });

  it('offsets the seed by the record index', () => {
    const [first, second, third] = pftRecords('1', 'assessments', 1, 3);
    expect(second?.value).toBe(((first?.value ?? 0) + 1) % 100);
    expect(third?.id).toBe('ASSE-1-p1-i2');
    expect(third?.mdsAssessmentIds?.[0]).toBe('MDS-1-p1-2-01');
    expect(third?.mdsAssessmentIds).toHaveLength(third?.mdsCount ?? -1);
  });

  it('computes demographics', () => {
    expect(JSON.stringify(demographics('1'))).toBe(
      '{"patientId":"1","firstName":"First571","lastName":"Last353","dob":"1971-12-17","gender":"F","status":"active"}',
    );
  });

  it('hashes the patient id exactly as sent', () => {
    expect(demographics('01')).not.toEqual({ ...demographics('1'), patientId: '01' });
  });

  it('computes MDS details whose responses are "3","4","0" in every section for MDS-1-p1-0-01', () => {
    const detail = mdsDetail('MDS-1-p1-0-01');
    expect(detail.assessmentId).toBe('MDS-1-p1-0-01');
    expect(detail.status).toBe('completed');
    expect(detail.sections.map((s) => s.sectionId)).toEqual(['S1', 'S2', 'S3']);
    for (const [i, section] of detail.sections.entries()) {
      expect(section.questions.map((q) => q.key)).toEqual([`B${i + 1}01`, `B${i + 1}02`, `B${i + 1}03`]);
      expect(section.questions.map((q) => q.responses.map((r) => r.responseValue))).toEqual([['3'], ['4'], ['0']]);
    }
  });

  it('wraps one record in a page whose total is the page count', () => {
    expect(onePage('1', 'conditions', 3, 3)).toEqual({
      data: pftRecords('1', 'conditions', 3, 1),
      paging: { hasMore: false, page: 3, pageSize: 1, total: 3 },
    });
    expect(onePage('1', 'conditions', 1, 3).paging.hasMore).toBe(true);
  });

  it('maps patients to facilities with floor division', () => {
    expect([1, 1000, 1001, 2500].map((pid) => facility(pid, 1000))).toEqual([1, 1, 2, 3]);
    expect(facility(5, 0)).toBe(5);
    expect(facility(0, 1000)).toBe(0);
  });
});

describe('patient-records page count (TEST_SERVER.md §10 step 3 check values)', () => {
  it.each([
    ['P-0001', 5],
    ['P-0002', 3],
    ['P-0003', 3],
  ])('%s has %d pages with the default bounds 2..5', (pid, pages) => {
    expect(2 + md5mod(pid, 5 - 2 + 1)).toBe(pages);
  });
});
