import { HttpError, detailError } from '../http/http-error';
import { floatParam, intParam, requiredStrParam } from '../http/params';
import { get, type Route } from '../http/route';
import { md5mod } from '../md5int';
import { roundTo } from '../round-to';

function medicationEntry(patientId: string, page: number, idx: number, padding: string): unknown {
  const eid = `${patientId}-p${page}-e${idx}`;
  return {
    fullUrl: `MedicationStatement/${eid}`,
    resource: {
      resourceType: 'MedicationStatement',
      id: eid,
      status: 'active',
      subject: { reference: `Patient/${patientId}` },
      medicationCodeableConcept: {
        coding: [{ system: 'http://www.nlm.nih.gov/research/umls/rxnorm', code: String(1000 + idx), display: `Drug-${idx}` }],
        text: `Medication record for patient ${patientId}`,
      },
      effectivePeriod: { start: '2024-01-01', end: '2024-12-31' },
      dosage: [{ text: '1 tablet daily', timing: { repeat: { frequency: 1, period: 1, periodUnit: 'd' } } }],
      _payload: padding,
    },
  };
}

/** §10: FHIR-like patient records used by `pagination/fetch_load_test`. */
export const patientRecordsRoutes: Route[] = [
  get('/api/v1/patient-records', async ({ read, state, limits, baseUrl }) => {
    const q = read({
      patientId: requiredStrParam(),
      page: intParam({ default: 1, ge: 1 }),
      pageSize: intParam({ default: 10, ge: 1 }),
      min_delay: floatParam({ default: limits.PATIENT_RECORDS_MIN_DELAY }),
      max_delay: floatParam({ default: limits.PATIENT_RECORDS_MAX_DELAY }),
      payload_kb: intParam({ default: limits.PATIENT_RECORDS_PAYLOAD_KB }),
      rate_limit: intParam({ default: limits.PATIENT_RECORDS_RATE_LIMIT }),
    });

    const decision = state.patientRecordsWindow.tryAcquire(q.rate_limit, state.clock.monotonicMs());
    if (!decision.accepted) {
      throw new HttpError(429, { error: 'Too Many Requests', message: 'Rate limit exceeded' }, { 'Retry-After': '1' });
    }

    const delaySeconds = q.min_delay + (q.max_delay - q.min_delay) * state.random();
    await state.sleep(delaySeconds);

    const minPages = limits.PATIENT_RECORDS_MIN_PAGES;
    const totalPages = minPages + md5mod(q.patientId, limits.PATIENT_RECORDS_MAX_PAGES - minPages + 1);
    if (q.page > totalPages) throw detailError(404, `Page ${q.page} does not exist for patient ${q.patientId}`);

    const paddingChars = Math.max(100, Math.floor((q.payload_kb * 1024) / q.pageSize) - 600);
    const padding = 'M'.repeat(paddingChars);
    const entry = Array.from({ length: q.pageSize }, (_, i) =>
      medicationEntry(q.patientId, q.page, (q.page - 1) * q.pageSize + i, padding),
    );

    const pageUrl = (page: number): string =>
      `${baseUrl}/api/v1/patient-records?patientId=${encodeURIComponent(q.patientId)}&page=${page}&pageSize=${q.pageSize}`;
    const link = [{ relation: 'self', url: pageUrl(q.page) }];
    if (q.page < totalPages) link.push({ relation: 'next', url: pageUrl(q.page + 1) });

    return {
      body: {
        resourceType: 'Bundle',
        type: 'searchset',
        total: totalPages * q.pageSize,
        link,
        entry,
        meta: {
          patientId: q.patientId,
          page: q.page,
          pageSize: q.pageSize,
          totalPages,
          delaySeconds: roundTo(delaySeconds, 2),
          estimatedResponseKB: Math.floor((paddingChars * q.pageSize) / 1024),
        },
      },
    };
  }),
];
