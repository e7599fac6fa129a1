/** Fixed constants of TEST_SERVER.md §0. */
export const ITEMS_PER_PAGE = 10;
export const TOTAL_ITEMS = 35;
export const HEAVY_TOTAL_ITEMS = 100;
export const REFERENCE_CHAIN_TOTAL_ITEMS = 382;
export const REFERENCE_CHAIN_MAX_DETAIL_ID = 20000;
export const PROBE_MAX_DELAY_SECONDS = 300;
export const PFT_BATCH_MAX_PATIENTS = 500;
