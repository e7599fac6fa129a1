import { ITEMS_PER_PAGE, TOTAL_ITEMS } from '../constants';
import { decodeCursorPage, encodeCursor } from '../cursor';
import { intParam, optionalStrParam } from '../http/params';
import { get, type Route } from '../http/route';
import { pySlice } from '../py-slice';

const ids = (count: number): number[] => Array.from({ length: count }, (_, i) => i + 1);
const day = (id: number): string => String((id % 28) + 1).padStart(2, '0');

/** §3-§5: page-number, offset and cursor pagination. */
export const paginationRoutes: Route[] = [
  get('/api/v1/assessments', ({ read }) => {
    const { page, pageSize } = read({ page: intParam({ default: 1 }), pageSize: intParam({ default: ITEMS_PER_PAGE }) });
    const start = (page - 1) * pageSize;
    const items = ids(TOTAL_ITEMS).map((id) => ({ id, name: `Assessment ${id}`, score: 50 + (id % 50) }));
    return {
      body: {
        data: pySlice(items, start, start + pageSize),
        paging: { hasMore: start + pageSize < TOTAL_ITEMS, page, pageSize, total: TOTAL_ITEMS },
      },
    };
  }),

  get('/api/v1/users', ({ read }) => {
    const { offset, limit } = read({ offset: intParam({ default: 0 }), limit: intParam({ default: ITEMS_PER_PAGE }) });
    const users = ids(TOTAL_ITEMS).map((id) => ({ id, username: `user${id}`, email: `user${id}@example.com` }));
    return {
      body: {
        users: pySlice(users, offset, offset + limit),
        has_more: offset + limit < TOTAL_ITEMS,
        offset,
        limit,
        total: TOTAL_ITEMS,
      },
    };
  }),

  get('/api/v1/events', ({ read }) => {
    const { cursor, limit } = read({ cursor: optionalStrParam(), limit: intParam({ default: ITEMS_PER_PAGE }) });
    const page = decodeCursorPage(cursor);
    const start = (page - 1) * limit;
    const events = ids(TOTAL_ITEMS).map((id) => ({
      id,
      type: 'user_action',
      timestamp: `2024-01-${day(id)}T12:00:00Z`,
      data: { action: `event_${id}` },
    }));
    return {
      body: {
        events: pySlice(events, start, start + limit),
        next_cursor: start + limit < TOTAL_ITEMS ? encodeCursor(page + 1) : null,
        limit,
      },
    };
  }),
];
