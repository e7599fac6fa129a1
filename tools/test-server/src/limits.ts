/**
 * Tunable constants of the test server (TEST_SERVER.md §0 "Constants").
 * Keys are the upstream environment variable names, so the CLI can read them
 * from `process.env` and tests can pass tiny values through `startTestServer`.
 */
export interface Limits {
  /** Ring-buffer size of concurrency probe events. */
  CONCURRENCY_PROBE_MAX_EVENTS: number;
  /** Requests per second across the PFT endpoints. */
  PFT_RATE_LIMIT: number;
  /** Default lower bound of the `/patient-records` latency, seconds. */
  PATIENT_RECORDS_MIN_DELAY: number;
  /** Default upper bound of the `/patient-records` latency, seconds. */
  PATIENT_RECORDS_MAX_DELAY: number;
  /** Default requests per second of `/patient-records`. */
  PATIENT_RECORDS_RATE_LIMIT: number;
  /** Fewest pages a patient has in `/patient-records`. */
  PATIENT_RECORDS_MIN_PAGES: number;
  /** Most pages a patient has in `/patient-records`. */
  PATIENT_RECORDS_MAX_PAGES: number;
  /** Default page size target of `/patient-records`, KB. */
  PATIENT_RECORDS_PAYLOAD_KB: number;
  /** Sleep of `/errors?error_type=timeout`, seconds (30 upstream; an extension so tests can run fast). */
  ERRORS_TIMEOUT_SECONDS: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  CONCURRENCY_PROBE_MAX_EVENTS: 200,
  PFT_RATE_LIMIT: 50,
  PATIENT_RECORDS_MIN_DELAY: 2.0,
  PATIENT_RECORDS_MAX_DELAY: 4.0,
  PATIENT_RECORDS_RATE_LIMIT: 50,
  PATIENT_RECORDS_MIN_PAGES: 2,
  PATIENT_RECORDS_MAX_PAGES: 5,
  PATIENT_RECORDS_PAYLOAD_KB: 100,
  ERRORS_TIMEOUT_SECONDS: 30,
});

type LimitKind = 'int' | 'float';

const LIMIT_KINDS: Readonly<Record<keyof Limits, LimitKind>> = {
  CONCURRENCY_PROBE_MAX_EVENTS: 'int',
  PFT_RATE_LIMIT: 'int',
  PATIENT_RECORDS_MIN_DELAY: 'float',
  PATIENT_RECORDS_MAX_DELAY: 'float',
  PATIENT_RECORDS_RATE_LIMIT: 'int',
  PATIENT_RECORDS_MIN_PAGES: 'int',
  PATIENT_RECORDS_MAX_PAGES: 'int',
  PATIENT_RECORDS_PAYLOAD_KB: 'int',
  ERRORS_TIMEOUT_SECONDS: 'float',
};

const LIMIT_NAMES = Object.keys(LIMIT_KINDS) as (keyof Limits)[];

const INT_TEXT = /^\s*[+-]?\d+\s*$/;
const FLOAT_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** Reads the limits present in an environment; throws on a malformed value. */
export function limitsFromEnv(env: Readonly<Record<string, string | undefined>>): Partial<Limits> {
  const found: Partial<Limits> = {};
  for (const name of LIMIT_NAMES) {
    const text = env[name];
    if (text === undefined || text.trim() === '') continue;
    const pattern = LIMIT_KINDS[name] === 'int' ? INT_TEXT : FLOAT_TEXT;
    if (!pattern.test(text)) {
      throw new Error(`${name} must be ${LIMIT_KINDS[name] === 'int' ? 'an integer' : 'a number'}, got ${JSON.stringify(text)}`);
    }
    found[name] = Number(text);
  }
  return found;
}

/** Merges overrides over the defaults and checks the combination once, at boot. */
export function resolveLimits(overrides: Partial<Limits> = {}): Limits {
  const limits: Limits = { ...DEFAULT_LIMITS };
  for (const name of LIMIT_NAMES) {
    const value = overrides[name];
    if (value === undefined) continue;
    if (!Number.isFinite(value) || (LIMIT_KINDS[name] === 'int' && !Number.isInteger(value))) {
      throw new Error(`${name} must be a finite ${LIMIT_KINDS[name] === 'int' ? 'integer' : 'number'}, got ${value}`);
    }
    limits[name] = value;
  }
  if (limits.PATIENT_RECORDS_MAX_PAGES < limits.PATIENT_RECORDS_MIN_PAGES) {
    throw new Error('PATIENT_RECORDS_MAX_PAGES must be >= PATIENT_RECORDS_MIN_PAGES');
  }
  if (limits.CONCURRENCY_PROBE_MAX_EVENTS < 0) {
    throw new Error('CONCURRENCY_PROBE_MAX_EVENTS must be >= 0');
  }
  return limits;
}
