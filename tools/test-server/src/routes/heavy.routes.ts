import { randomBytes, randomInt } from 'node:crypto';
import { HEAVY_TOTAL_ITEMS } from '../constants';
import { intParam } from '../http/params';
import { get, type Route } from '../http/route';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const CATEGORIES = ['finance', 'technology', 'healthcare', 'education'] as const;

/** `length` random characters from `[A-Za-z0-9]`. */
function randomAlphanumeric(length: number): string {
  if (length <= 0) return '';
  const bytes = randomBytes(length);
  let text = '';
  for (const byte of bytes) text += ALPHANUMERIC[byte % ALPHANUMERIC.length];
  return text;
}

function heavyItem(id: number, payloadKb: number): Record<string, unknown> {
  const day = String((id % 28) + 1).padStart(2, '0');
  return {
    id,
    name: `Heavy Assessment ${id}`,
    score: 50 + (id % 50),
    category: CATEGORIES[randomInt(CATEGORIES.length)],
    metadata: {
      created_at: `2024-01-${day}T12:00:00Z`,
      updated_at: `2024-01-${day}T14:30:00Z`,
      version: `1.${id % 10}.0`,
      tags: Array.from({ length: 5 }, (_, i) => `tag_${i}`),
    },
    description: `This is a detailed description for assessment ${id}. `.repeat(10),
    payload: randomAlphanumeric(payloadKb * 1024),
  };
}

/** §7: heavy payloads, plus the optional §11 `/heavy/stats`. */
export const heavyRoutes: Route[] = [
  get('/api/v1/heavy', ({ read }) => {
    const q = read({ page: intParam({ default: 1 }), pageSize: intParam({ default: 10 }), payload_kb: intParam({ default: 10 }) });
    const start = (q.page - 1) * q.pageSize;
    const data: Record<string, unknown>[] = [];
    for (let id = start + 1; id <= Math.min(start + q.pageSize, HEAVY_TOTAL_ITEMS); id += 1) {
      data.push(heavyItem(id, q.payload_kb));
    }
    return {
      body: {
        data,
        paging: { hasMore: start + q.pageSize < HEAVY_TOTAL_ITEMS, page: q.page, pageSize: q.pageSize, total: HEAVY_TOTAL_ITEMS },
        meta: { payload_kb_per_item: q.payload_kb, estimated_response_kb: Math.floor(JSON.stringify(data).length / 1024) },
      },
    };
  }),

  get('/api/v1/heavy/stats', () => ({
    body: {
      total_items: HEAVY_TOTAL_ITEMS,
      default_payload_kb: 10,
      max_recommended_payload_kb: 1000,
      example_urls: [
        '/api/v1/heavy?page=1&pageSize=10&payload_kb=10',
        '/api/v1/heavy?page=1&pageSize=5&payload_kb=100',
        '/api/v1/heavy?page=1&pageSize=2&payload_kb=500',
      ],
    },
  })),
];
