import { DEFAULT_LIMITS, limitsFromEnv, resolveLimits } from './limits';

describe('limits', () => {
  it('defaults to the constants of TEST_SERVER.md §0', () => {
    expect(resolveLimits()).toEqual({
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
  });

  it('reads the upstream environment variables, ignoring unrelated and blank ones', () => {
    expect(limitsFromEnv({ PFT_RATE_LIMIT: '7', PATIENT_RECORDS_MIN_DELAY: '0.05', HOME: '/root', PATIENT_RECORDS_MAX_DELAY: '' })).toEqual(
      {
        PFT_RATE_LIMIT: 7,
        PATIENT_RECORDS_MIN_DELAY: 0.05,
      },
    );
  });

  it('refuses malformed values at boot', () => {
    expect(() => limitsFromEnv({ PFT_RATE_LIMIT: '2.5' })).toThrow(/PFT_RATE_LIMIT/);
    expect(() => limitsFromEnv({ PATIENT_RECORDS_MIN_DELAY: 'soon' })).toThrow(/PATIENT_RECORDS_MIN_DELAY/);
    expect(() => resolveLimits({ PATIENT_RECORDS_MIN_PAGES: 6 })).toThrow(/MAX_PAGES/);
    expect(() => resolveLimits({ PFT_RATE_LIMIT: 1.5 })).toThrow(/PFT_RATE_LIMIT/);
  });

  it('merges overrides over the defaults without touching them', () => {
    expect(resolveLimits({ PFT_RATE_LIMIT: 3 }).PFT_RATE_LIMIT).toBe(3);
    expect(DEFAULT_LIMITS.PFT_RATE_LIMIT).toBe(50);
  });
});
