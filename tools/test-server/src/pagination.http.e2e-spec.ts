import { startTestServer, type TestServer } from './server';
import { fetchJson } from './testing/fetch-json';

type PageBody = {
  data: { id: number; name: string; score: number }[];
  paging: { hasMore: boolean; page: number; pageSize: number; total: number };
};
type UsersBody = {
  users: { id: number; username: string; email: string }[];
  has_more: boolean;
  offset: number;
  limit: number;
  total: number;
};
type EventsBody = {
  events: { id: number; type: string; timestamp: string; data: { action: string } }[];
  next_cursor: string | null;
  limit: number;
};

describe('pagination endpoints (TEST_SERVER.md §3-§5)', () => {
  let server: TestServer;
  const call = <T>(path: string) => fetchJson<T>(server.url + path).then((res) => res.body);

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  describe('GET /api/v1/assessments', () => {
    it('serves 10 items per page by default with the full paging block', async () => {
      const body = await call<PageBody>('/api/v1/assessments');
      expect(body.data).toHaveLength(10);
      expect(body.data[0]).toEqual({ id: 1, name: 'Assessment 1', score: 51 });
      expect(body.paging).toEqual({ hasMore: true, page: 1, pageSize: 10, total: 35 });
    });

    it('serves ids 1-5 for page 1 of size 5 (test_pipeline_simple)', async () => {
      const body = await call<PageBody>('/api/v1/assessments?page=1&pageSize=5');
      expect(body.data.map((item) => item.id)).toEqual([1, 2, 3, 4, 5]);
    });

    it('serves pages of 30 and 5 for size 30 (loop_with_pagination)', async () => {
      const first = await call<PageBody>('/api/v1/assessments?page=1&pageSize=30');
      const second = await call<PageBody>('/api/v1/assessments?page=2&pageSize=30');
      expect([first.data.length, first.paging.hasMore]).toEqual([30, true]);
      expect([second.data.length, second.paging.hasMore]).toEqual([5, false]);
      expect(second.data.map((item) => item.id)).toEqual([31, 32, 33, 34, 35]);
    });

    it('scores items as 50 + (id % 50) and serves an empty page past the end', async () => {
      expect((await call<PageBody>('/api/v1/assessments?page=4')).data.map((item) => item.score)).toEqual([81, 82, 83, 84, 85]);
      expect(await call<PageBody>('/api/v1/assessments?page=9')).toEqual({
        data: [],
        paging: { hasMore: false, page: 9, pageSize: 10, total: 35 },
      });
    });
  });

  describe('GET /api/v1/users', () => {
    it('slices by offset and limit with a snake_case has_more', async () => {
      const first = await call<UsersBody>('/api/v1/users');
      expect(first.users[0]).toEqual({ id: 1, username: 'user1', email: 'user1@example.com' });
      expect({ ...first, users: first.users.length }).toEqual({ users: 10, has_more: true, offset: 0, limit: 10, total: 35 });

      const last = await call<UsersBody>('/api/v1/users?offset=30&limit=10');
      expect(last.users.map((user) => user.id)).toEqual([31, 32, 33, 34, 35]);
      expect(last.has_more).toBe(false);
    });

    it('walks all 35 users with offset paging', async () => {
      const ids: number[] = [];
      for (let offset = 0, more = true; more; offset += 10) {
        const body = await call<UsersBody>(`/api/v1/users?offset=${offset}&limit=10`);
        ids.push(...body.users.map((user) => user.id));
        more = body.has_more;
      }
      expect(ids).toEqual(Array.from({ length: 35 }, (_, i) => i + 1));
    });
  });

  describe('GET /api/v1/events', () => {
    it('walks 35 events with the cursors Mg==, Mw==, NA==, then a real null', async () => {
      const cursors: (string | null)[] = [];
      const ids: number[] = [];
      let cursor = '';
      for (;;) {
        const body = await call<EventsBody>(`/api/v1/events?limit=10&cursor=${encodeURIComponent(cursor)}`);
        ids.push(...body.events.map((event) => event.id));
        cursors.push(body.next_cursor);
        expect(Object.keys(body)).toContain('next_cursor');
        if (body.next_cursor === null) break;
        cursor = body.next_cursor;
      }
      expect(cursors).toEqual(['Mg==', 'Mw==', 'NA==', null]);
      expect(ids).toEqual(Array.from({ length: 35 }, (_, i) => i + 1));
    });

    it('shapes each event with a day-of-month timestamp', async () => {
      const body = await call<EventsBody>('/api/v1/events?limit=1&cursor=Mjg=');
      expect(body.events).toEqual([{ id: 28, type: 'user_action', timestamp: '2024-01-01T12:00:00Z', data: { action: 'event_28' } }]);
      expect(body.limit).toBe(1);
    });

    it('decodes a percent-encoded cursor and treats an absent or bad cursor as page 1', async () => {
      expect((await call<EventsBody>('/api/v1/events?cursor=Mg%3D%3D')).events[0]?.id).toBe(11);
      expect((await call<EventsBody>('/api/v1/events')).events[0]?.id).toBe(1);
      expect((await call<EventsBody>('/api/v1/events?cursor=%21%21%21')).events[0]?.id).toBe(1);
      expect((await call<EventsBody>('/api/v1/events?cursor=Mg')).events[0]?.id).toBe(1);
    });

    it('honours the limit when computing the next cursor', async () => {
      const first = await call<EventsBody>('/api/v1/events?limit=20');
      const second = await call<EventsBody>(`/api/v1/events?limit=20&cursor=${first.next_cursor ?? ''}`);
      expect([first.events.length, first.next_cursor]).toEqual([20, 'Mg==']);
      expect([second.events.length, second.next_cursor]).toEqual([15, null]);
    });
  });
});
