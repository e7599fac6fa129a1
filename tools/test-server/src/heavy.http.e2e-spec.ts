import { startTestServer, type TestServer } from './server';
import { fetchJson } from './testing/fetch-json';

type HeavyItem = {
  id: number;
  name: string;
  score: number;
  category: string;
  metadata: { created_at: string; updated_at: string; version: string; tags: string[] };
  description: string;
  payload: string;
};
type HeavyBody = {
  data: HeavyItem[];
  paging: Record<string, unknown>;
  meta: { payload_kb_per_item: number; estimated_response_kb: number };
};

describe('heavy payloads (TEST_SERVER.md §7)', () => {
  let server: TestServer;
  const call = <T>(path: string) => fetchJson<T>(server.url + path).then((res) => res.body);

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('serves pages of 5 items of 50 KB each (test_pipeline_heavy_payload)', async () => {
    for (const page of [1, 2, 3]) {
      const body = await call<HeavyBody>(`/api/v1/heavy?page=${page}&pageSize=5&payload_kb=50`);
      expect(body.data.map((item) => item.id)).toEqual([1, 2, 3, 4, 5].map((i) => (page - 1) * 5 + i));
      for (const item of body.data) {
        expect(item.payload).toHaveLength(50 * 1024);
        expect(item.payload).toMatch(/^[A-Za-z0-9]+$/);
      }
      expect(body.paging).toEqual({ hasMore: true, page, pageSize: 5, total: 100 });
      expect(body.meta.payload_kb_per_item).toBe(50);
      expect(body.meta.estimated_response_kb).toBeGreaterThanOrEqual(250);
      expect(body.meta.estimated_response_kb).toBeLessThan(260);
    }
  });

  it('shapes each item as specified', async () => {
    const body = await call<HeavyBody>('/api/v1/heavy?pageSize=1&payload_kb=0');
    expect(body.data).toEqual([
      {
        id: 1,
        name: 'Heavy Assessment 1',
        score: 51,
        category: expect.stringMatching(/^(finance|technology|healthcare|education)$/),
        metadata: {
          created_at: '2024-01-02T12:00:00Z',
          updated_at: '2024-01-02T14:30:00Z',
          version: '1.1.0',
          tags: ['tag_0', 'tag_1', 'tag_2', 'tag_3', 'tag_4'],
        },
        description: 'This is a detailed description for assessment 1. '.repeat(10),
        payload: '',
      },
    ]);
  });

  it('defaults to 10 items of 10 KB and stops at item 100', async () => {
    const first = await call<HeavyBody>('/api/v1/heavy');
    expect([first.data.length, first.data[0]?.payload.length, first.meta.payload_kb_per_item]).toEqual([10, 10240, 10]);
    const last = await call<HeavyBody>('/api/v1/heavy?page=7&pageSize=16&payload_kb=1');
    expect(last.data.map((item) => item.id)).toEqual([97, 98, 99, 100]);
    expect(last.paging.hasMore).toBe(false);
  });

  it('describes itself at /heavy/stats', async () => {
    const stats = await call<Record<string, unknown>>('/api/v1/heavy/stats');
    expect(stats).toEqual(expect.objectContaining({ total_items: 100, default_payload_kb: 10, max_recommended_payload_kb: 1000 }));
  });
});
