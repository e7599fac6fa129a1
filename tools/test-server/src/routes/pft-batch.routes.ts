import { PFT_BATCH_MAX_PATIENTS } from '../constants';
import { detailError } from '../http/http-error';
import { intParam, requiredStrParam } from '../http/params';
import { get, type Route } from '../http/route';
import { demographics, facility, isPftPagedType, mdsDetail, pageCount, pftRecords, PFT_PAGE_BOUNDS } from '../pft-data';
import { parsePyInt } from '../py-int';

/** `patientIds`: comma-separated integers, trimmed, empty tokens skipped, 1..500 of them. */
function parsePatientIds(raw: string): number[] {
  const ids: number[] = [];
  for (const token of raw.split(',')) {
    if (token.trim() === '') continue;
    const pid = parsePyInt(token);
    if (pid === undefined) throw detailError(400, `patientIds must contain integer patient ids, got ${JSON.stringify(token.trim())}`);
    ids.push(pid);
  }
  if (ids.length === 0) throw detailError(400, 'patientIds must contain at least one patient id');
  if (ids.length > PFT_BATCH_MAX_PATIENTS) throw detailError(400, `patientIds batch size must be <= ${PFT_BATCH_MAX_PATIENTS}`);
  return ids;
}

/** The rows of one patient for `dataType`, or `undefined` for an unsupported type. */
function patientRows(dataType: string, pid: number, pageSize: number, patientsPerFacility: number): unknown[] | undefined {
  const key = String(pid);
  const fid = facility(pid, patientsPerFacility);
  if (isPftPagedType(dataType)) {
    const [lo, hi] = PFT_PAGE_BOUNDS[dataType];
    const total = pageCount(key, dataType, lo, hi);
    return Array.from({ length: total }, (_, i) => {
      const page = i + 1;
      return {
        patient_id: pid,
        facility_mapping_id: fid,
        page_number: page,
        payload: {
          data: pftRecords(key, dataType, page, pageSize),
          paging: { hasMore: page < total, page, pageSize, total: total * pageSize },
        },
        is_last_page: page === total,
      };
    });
  }
  if (dataType === 'demographics') return [{ patient_id: pid, facility_mapping_id: fid, payload: demographics(key) }];
  if (dataType === 'mds') {
    const [lo, hi] = PFT_PAGE_BOUNDS.assessments;
    const aid = `MDS-${pid}-${pageCount(key, 'assessments', lo, hi)}`;
    return [{ patient_id: pid, facility_mapping_id: fid, assessment_id: aid, payload: mdsDetail(aid) }];
  }
  return undefined;
}

/** §9.6: the batch endpoint of `test_pft_flow.yaml`; not rate limited. */
export const pftBatchRoutes: Route[] = [
  get('/api/v1/pft/batch/{data_type}', ({ read }) => {
    const q = read(
      {
        patientIds: requiredStrParam(),
        pageSize: intParam({ default: 10, ge: 1 }),
        patientsPerFacility: intParam({ default: 1000, ge: 1 }),
      },
      { data_type: requiredStrParam() },
    );
    const ids = parsePatientIds(q.patientIds);
    const rows: unknown[] = [];
    for (const pid of ids) {
      const patient = patientRows(q.data_type, pid, q.pageSize, q.patientsPerFacility);
      if (!patient) throw detailError(400, `unsupported PFT batch data_type: ${q.data_type}`);
      rows.push(...patient);
    }
    return { body: { dataType: q.data_type, patientCount: ids.length, rowCount: rows.length, rows } };
  }),
];
