const BIGINT_ID = /^\d{1,19}$/;

/** Ids are 64-bit integers carried as decimal strings; anything else names nothing. */
export function isBigintId(id: string): boolean {
  return BIGINT_ID.test(id);
}
