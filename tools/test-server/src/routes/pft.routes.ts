import { HttpError, detailError } from '../http/http-error';
import { intParam, requiredStrParam } from '../http/params';
import { get, type Route } from '../http/route';
import { md5mod } from '../md5int';
import { demographics, mdsDetail, onePage, pageCount, PFT_PAGE_BOUNDS, type PftPagedType } from '../pft-data';
import type { ServerState } from '../server-state';

/**
 * §9.1: one shared 1 s window of `PFT_RATE_LIMIT` requests. Call it after
 * query validation and before any other check of the handler.
 */
export function enforcePftRateLimit(state: ServerState): void {
  const decision = state.pftWindow.tryAcquire(state.limits.PFT_RATE_LIMIT, state.clock.monotonicMs());
  if (!decision.accepted) throw detailError(429, 'Too Many Requests', { 'Retry-After': '1' });
}

/** §9.3: one record per page; `pageSize` is accepted and ignored. */
function patientPageRoute(type: PftPagedType): Route {
  return get(`/api/v1/patient/${type}`, ({ read, state }) => {
    const q = read({ patientId: requiredStrParam(), page: intParam({ default: 1, ge: 1 }), pageSize: intParam({ default: 10 }) });
    enforcePftRateLimit(state);
    const [lo, hi] = PFT_PAGE_BOUNDS[type];
    const total = pageCount(q.patientId, type, lo, hi);
    if (q.page > total) throw new HttpError(404, { error: 'page not found' });
    return { body: onePage(q.patientId, type, q.page, total) };
  });
}

/** §9.3-§9.5 and the optional legacy `/api/v1/mds/*` routes of §11. */
export const pftRoutes: Route[] = [
  patientPageRoute('assessments'),
  patientPageRoute('conditions'),
  patientPageRoute('medications'),
  patientPageRoute('vital_signs'),

  get('/api/v1/patient/demographics', ({ read, state }) => {
    const { patientId } = read({ patientId: requiredStrParam() });
    enforcePftRateLimit(state);
    return { body: demographics(patientId) };
  }),

  get('/api/v1/pft/mds/details', ({ read, state }) => {
    const { assessmentId } = read({ assessmentId: requiredStrParam() });
    enforcePftRateLimit(state);
    const aid = assessmentId.trim();
    if (aid === '') throw detailError(400, 'assessmentId must contain one assessment id');
    if (aid.includes(',')) throw detailError(400, 'assessmentId must contain exactly one assessment id');
    return { body: { rowCount: 1, rows: [{ assessment_id: aid, payload: mdsDetail(aid) }] } };
  }),

  get('/api/v1/mds/assessment_ids', ({ read, state }) => {
    const { patientId } = read({ patientId: requiredStrParam() });
    enforcePftRateLimit(state);
    const count = 2 + md5mod(`${patientId}:mds`, 4);
    const assessmentIds = Array.from({ length: count }, (_, k) => `MDS-${patientId}-${String(k + 1).padStart(3, '0')}`);
    return { body: { patientId, assessmentIds, count } };
  }),

  get('/api/v1/mds/assessment/{assessment_id}', ({ read, state }) => {
    const { assessment_id } = read({}, { assessment_id: requiredStrParam() });
    enforcePftRateLimit(state);
    return { body: mdsDetail(assessment_id) };
  }),
];
