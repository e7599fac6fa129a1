import { md5int, md5mod } from './md5int';

/** Deterministic PFT helpers of TEST_SERVER.md §9.2. `pid` is hashed exactly as given. */

export const PFT_PAGED_TYPES = ['assessments', 'conditions', 'medications', 'vital_signs'] as const;
export type PftPagedType = (typeof PFT_PAGED_TYPES)[number];

/** Page-count bounds `[lo, hi]` of each paged data type. */
export const PFT_PAGE_BOUNDS: Readonly<Record<PftPagedType, readonly [number, number]>> = {
  assessments: [2, 4],
  conditions: [1, 3],
  medications: [2, 3],
  vital_signs: [1, 1],
};

export function isPftPagedType(value: string): value is PftPagedType {
  return (PFT_PAGED_TYPES as readonly string[]).includes(value);
}

export interface PftRecord {
  id: string;
  patientId: string;
  dataType: string;
  value: number;
  mdsAssessmentIds?: string[];
  mdsCount?: number;
}

export interface PftPaging {
  hasMore: boolean;
  page: number;
  pageSize: number;
  total: number;
}

export interface PftPage {
  data: PftRecord[];
  paging: PftPaging;
}

export interface Demographics {
  patientId: string;
  firstName: string;
  lastName: string;
  dob: string;
  gender: 'M' | 'F';
  status: 'active';
}

export interface MdsDetail {
  assessmentId: string;
  status: 'completed';
  sections: { sectionId: string; questions: { key: string; responses: { responseValue: string }[] }[] }[];
}

const pad = (value: number | bigint, width: number): string => String(value).padStart(width, '0');

/** `lo + md5int("{pid}:{type}") % (hi-lo+1)`. */
export function pageCount(pid: string, type: string, lo: number, hi: number): number {
  return lo + md5mod(`${pid}:${type}`, hi - lo + 1);
}

/** `n` records of one page; assessments also carry their MDS assessment ids. */
export function pftRecords(pid: string, type: string, page: number, n: number): PftRecord[] {
  const seed = md5int(`${pid}:${type}:${page}`);
  const type4 = type.slice(0, 4).toUpperCase();
  const records: PftRecord[] = [];
  for (let i = 0; i < n; i += 1) {
    const mixed = seed + BigInt(i);
    const record: PftRecord = {
      id: `${type4}-${pid}-p${page}-i${i}`,
      patientId: pid,
      dataType: type,
      value: Number(mixed % 100n),
    };
    if (type === 'assessments') {
      const mdsCount = 5 + Number(mixed % 6n);
      record.mdsAssessmentIds = Array.from({ length: mdsCount }, (_, k) => `MDS-${pid}-p${page}-${i}-${pad(k + 1, 2)}`);
      record.mdsCount = mdsCount;
    }
    records.push(record);
  }
  return records;
}

/** One page holding one record; `total` is the number of pages. */
export function onePage(pid: string, type: string, page: number, total: number): PftPage {
  return {
    data: pftRecords(pid, type, page, 1),
    paging: { hasMore: page < total, page, pageSize: 1, total },
  };
}

export function demographics(pid: string): Demographics {
  const s = md5int(`${pid}:demographics`);
  return {
    patientId: pid,
    firstName: `First${s % 1000n}`,
    lastName: `Last${(s >> 8n) % 1000n}`,
    dob: `19${50n + (s % 50n)}-${pad(1n + (s % 12n), 2)}-${pad(1n + ((s >> 4n) % 28n), 2)}`,
    gender: s % 2n === 0n ? 'M' : 'F',
    status: 'active',
  };
}

export function mdsDetail(aid: string): MdsDetail {
  const s = md5int(aid);
  return {
    assessmentId: aid,
    status: 'completed',
    sections: [1, 2, 3].map((i) => ({
      sectionId: `S${i}`,
      questions: [1, 2, 3].map((j) => ({
        key: `B${i}0${j}`,
        responses: [{ responseValue: String((s + BigInt(i * 10 + j)) % 5n) }],
      })),
    })),
  };
}

/** `floor((pid-1) / max(1, ppf)) + 1`, with Python's floor division. */
export function facility(pid: number, patientsPerFacility: number): number {
  return Math.floor((pid - 1) / Math.max(1, patientsPerFacility)) + 1;
}
