import { detPayload } from './det-payload';
import { startTestServer, type TestServer } from './server';
import { fetchJson } from './testing/fetch-json';

type ChainRecord = { record_id: number; record_ref: string; prev_ref: string | null; batch: number; payload: string };
type ChainBody = {
  data: ChainRecord[];
  paging: { hasMore: boolean; page: number; pageSize: number; total: number; nextPage: number | null };
  refs: {
    mode: string;
    root_ref: string;
    page_ref: string;
    prev_page_ref: string | null;
    next_page_ref: string | null;
    chain: string[];
    chain_length: number;
  };
  meta: { payload_kb_per_record: number; approx_response_kb: number };
};

describe('reference chain (TEST_SERVER.md §8)', () => {
  let server: TestServer;
  const call = <T = ChainBody>(path: string) => fetchJson<T>(server.url + path);
  const items = (query = '') => call(`/api/v1/reference-chain/items${query}`).then((res) => res.body);

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('serves the first page with deterministic 1 KB payloads by default', async () => {
    const body = await items();
    expect(body.data).toHaveLength(25);
    expect(body.data[0]).toEqual({ record_id: 1, record_ref: 'record-000001', prev_ref: null, batch: 1, payload: detPayload(1, 'item-1') });
    expect(body.data[0]?.payload.startsWith('59908df50572502ceeab')).toBe(true);
    expect(body.data[1]?.prev_ref).toBe('record-000001');
    expect(body.paging).toEqual({ hasMore: true, page: 1, pageSize: 25, total: 382, nextPage: 2 });
    expect(body.refs).toEqual({
      mode: 'linked',
      root_ref: 'run-root-000001',
      page_ref: 'page-000001',
      prev_page_ref: null,
      next_page_ref: 'page-000002',
      chain: ['page-000001'],
      chain_length: 1,
    });
    expect(body.meta).toEqual({ payload_kb_per_record: 1, approx_response_kb: 26 });
  });

  it('walks 382 records with a linked chain of at most 2 refs (reference_chain_loop_stress)', async () => {
    const ids: number[] = [];
    let page = 1;
    for (;;) {
      const body = await items(`?page=${page}&payload_kb=0`);
      ids.push(...body.data.map((record) => record.record_id));
      expect(body.refs.chain.length).toBeLessThanOrEqual(2);
      expect(body.data.every((record) => record.batch === page)).toBe(true);
      if (!body.paging.hasMore) break;
      page += 1;
    }
    expect(ids).toEqual(Array.from({ length: 382 }, (_, i) => i + 1));
    expect(page).toBe(16);
  });

  it('returns the last page for a page past the end', async () => {
    const body = await items('?page=999&payload_kb=0');
    expect(body.paging).toEqual({ hasMore: false, page: 16, pageSize: 25, total: 382, nextPage: null });
    expect(body.data.map((record) => record.record_id)).toEqual([376, 377, 378, 379, 380, 381, 382]);
    expect(body.refs).toEqual(
      expect.objectContaining({
        page_ref: 'page-000016',
        prev_page_ref: 'page-000015',
        next_page_ref: null,
        chain: ['page-000015', 'page-000016'],
      }),
    );
  });

  it('clamps pageSize, total, page and payload_kb', async () => {
    const big = await items('?pageSize=500&total=99999&payload_kb=0');
    expect([big.paging.pageSize, big.paging.total, big.data.length]).toEqual([200, 20000, 200]);

    const small = await items('?pageSize=0&total=0&page=-4&payload_kb=-1');
    expect(small.paging).toEqual({ hasMore: false, page: 1, pageSize: 1, total: 1, nextPage: null });
    expect(small.data).toEqual([{ record_id: 1, record_ref: 'record-000001', prev_ref: null, batch: 1, payload: '' }]);

    const heavy = await items('?pageSize=1&payload_kb=999');
    expect(heavy.meta).toEqual({ payload_kb_per_record: 256, approx_response_kb: 257 });
    expect(heavy.data[0]?.payload).toHaveLength(256 * 1024);
  });

  it('builds windowed and expanded chains, case-insensitively', async () => {
    const windowed = await items('?page=5&payload_kb=0&ref_mode=Windowed&chain_window=3');
    expect([windowed.refs.mode, windowed.refs.chain, windowed.refs.chain_length]).toEqual([
      'windowed',
      ['page-000003', 'page-000004', 'page-000005'],
      3,
    ]);

    const clampedWindow = await items('?page=2&payload_kb=0&ref_mode=windowed&chain_window=0');
    expect(clampedWindow.refs.chain).toEqual(['page-000002']);

    const expanded = await items('?page=4&payload_kb=0&ref_mode=EXPANDED');
    expect([expanded.refs.mode, expanded.refs.chain]).toEqual(['expanded', ['page-000001', 'page-000002', 'page-000003', 'page-000004']]);
  });

  it('reports an unknown mode as linked', async () => {
    const body = await items('?page=3&payload_kb=0&ref_mode=spiral');
    expect([body.refs.mode, body.refs.chain]).toEqual(['linked', ['page-000002', 'page-000003']]);
  });

  it('serves the optional detail route with its bounds', async () => {
    const detail = await call<Record<string, unknown>>('/api/v1/reference-chain/detail/7?payload_kb=1&parent_ref=page-000001');
    expect(detail.body).toEqual({
      record_id: 7,
      status: 'ok',
      refs: {
        mode: 'linked',
        detail_ref: 'detail-000007',
        prev_detail_ref: 'detail-000006',
        parent_ref: 'page-000001',
        chain: ['detail-000006', 'detail-000007'],
        chain_length: 2,
      },
      summary: { classification: 'class-0', score: 47, payload_kb: 1 },
      payload: detPayload(1, 'detail-7'),
    });
    expect((await call('/api/v1/reference-chain/detail/0')).status).toBe(404);
    expect((await call('/api/v1/reference-chain/detail/20001')).status).toBe(400);
  });
});
