import { REFERENCE_CHAIN_MAX_DETAIL_ID, REFERENCE_CHAIN_TOTAL_ITEMS } from '../constants';
import { detPayload } from '../det-payload';
import { detailError } from '../http/http-error';
import { intParam, strParam } from '../http/params';
import { get, type Route } from '../http/route';

const clamp = (value: number, lo: number, hi: number): number => Math.min(Math.max(value, lo), hi);
const ref = (prefix: string, n: number): string => `${prefix}-${String(n).padStart(6, '0')}`;
const refRange = (prefix: string, from: number, to: number): string[] =>
  Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => ref(prefix, from + i));

type RefMode = 'linked' | 'windowed' | 'expanded';

/** `ref_mode`, case-insensitive; anything unknown is reported as `linked`. */
function refMode(raw: string): RefMode {
  const mode = (raw || 'linked').toLowerCase();
  return mode === 'windowed' || mode === 'expanded' ? mode : 'linked';
}

/** The ref chain ending at `n`: all of `1..n`, the last `window`, or `[prev, n]`. */
function chainOf(prefix: string, mode: RefMode, n: number, window: number): string[] {
  if (mode === 'expanded') return refRange(prefix, 1, n);
  if (mode === 'windowed') return refRange(prefix, Math.max(1, n - window + 1), n);
  return refRange(prefix, Math.max(1, n - 1), n);
}

/** §8: the reference chain used by `load_test/reference_chain_loop_stress`, plus the optional §11 detail. */
export const referenceChainRoutes: Route[] = [
  get('/api/v1/reference-chain/items', ({ read }) => {
    const q = read({
      page: intParam({ default: 1 }),
      pageSize: intParam({ default: 25 }),
      total: intParam({ default: REFERENCE_CHAIN_TOTAL_ITEMS }),
      payload_kb: intParam({ default: 1 }),
      ref_mode: strParam('linked'),
      chain_window: intParam({ default: 2 }),
    });
    const size = clamp(q.pageSize, 1, 200);
    const tot = clamp(q.total, 1, 20000);
    const maxPage = Math.ceil(tot / size);
    const p = clamp(q.page, 1, maxPage);
    const kb = clamp(q.payload_kb, 0, 256);
    const mode = refMode(q.ref_mode);

    const start = (p - 1) * size;
    const end = Math.min(start + size, tot);
    const hasMore = end < tot;
    const records = [];
    for (let id = start + 1; id <= end; id += 1) {
      records.push({
        record_id: id,
        record_ref: ref('record', id),
        prev_ref: id > 1 ? ref('record', id - 1) : null,
        batch: Math.floor((id - 1) / size) + 1,
        payload: detPayload(kb, `item-${id}`),
      });
    }
    const chain = chainOf('page', mode, p, clamp(q.chain_window, 1, 50));
    return {
      body: {
        data: records,
        paging: { hasMore, page: p, pageSize: size, total: tot, nextPage: hasMore ? p + 1 : null },
        refs: {
          mode,
          root_ref: 'run-root-000001',
          page_ref: ref('page', p),
          prev_page_ref: p > 1 ? ref('page', p - 1) : null,
          next_page_ref: hasMore ? ref('page', p + 1) : null,
          chain,
          chain_length: chain.length,
        },
        meta: { payload_kb_per_record: kb, approx_response_kb: records.length * kb + 1 },
      },
    };
  }),

  get('/api/v1/reference-chain/detail/{record_id}', ({ read }) => {
    const q = read(
      {
        payload_kb: intParam({ default: 2 }),
        ref_mode: strParam('linked'),
        chain_window: intParam({ default: 2 }),
        parent_ref: strParam(''),
      },
      { record_id: intParam() },
    );
    const id = q.record_id;
    if (id <= 0) throw detailError(404, 'record not found');
    if (id > REFERENCE_CHAIN_MAX_DETAIL_ID) {
      throw detailError(400, `record_id exceeds max supported value (${REFERENCE_CHAIN_MAX_DETAIL_ID})`);
    }
    const kb = clamp(q.payload_kb, 0, 256);
    const mode = refMode(q.ref_mode);
    const chain = chainOf('detail', mode, id, clamp(q.chain_window, 1, 100));
    return {
      body: {
        record_id: id,
        status: 'ok',
        refs: {
          mode,
          detail_ref: ref('detail', id),
          prev_detail_ref: id > 1 ? ref('detail', id - 1) : null,
          parent_ref: q.parent_ref || null,
          chain,
          chain_length: chain.length,
        },
        summary: { classification: `class-${id % 7}`, score: 40 + (id % 60), payload_kb: kb },
        payload: detPayload(kb, `detail-${id}`),
      },
    };
  }),
];
