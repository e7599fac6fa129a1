import { ITEMS_PER_PAGE, TOTAL_ITEMS } from '../constants';
import { detailError, HttpError } from '../http/http-error';
import { intParam, optionalStrParam, strParam } from '../http/params';
import { get, post, type Reply, type Route } from '../http/route';
import { parsePyInt } from '../py-int';
import { pySlice } from '../py-slice';

/** A successful `/flaky` page: fixed size 10, no `total`. */
function itemPage(page: number, extra: Record<string, unknown> = {}): { data: unknown[]; paging: Record<string, unknown> } {
  const start = (page - 1) * ITEMS_PER_PAGE;
  const items = Array.from({ length: TOTAL_ITEMS }, (_, i) => ({ id: i + 1, value: `item_${i + 1}`, ...extra }));
  return {
    data: pySlice(items, start, start + ITEMS_PER_PAGE),
    paging: { hasMore: start + ITEMS_PER_PAGE < TOTAL_ITEMS, page, pageSize: ITEMS_PER_PAGE },
  };
}

/** Page numbers listed in `fail_on`; blank tokens are skipped, a non-integer token is a 500. */
function failPages(failOn: string): number[] {
  return failOn
    .split(',')
    .filter((token) => token.trim() !== '')
    .map((token) => {
      const page = parsePyInt(token);
      if (page === undefined) throw detailError(500, 'Internal Server Error');
      return page;
    });
}

/** The fixed answers of `/errors`, keyed by `error_type`. */
function simulatedError(errorType: string | undefined, retryAfter: number): Reply | undefined {
  const retryHeader = { 'Retry-After': String(retryAfter) };
  switch (errorType) {
    case '429':
      return { status: 429, body: { error: 'Too Many Requests', message: 'Rate limit exceeded' }, headers: retryHeader };
    case '500':
      return { status: 500, body: { detail: 'Internal Server Error - simulated' } };
    case '503':
      return { status: 503, body: { error: 'Service Unavailable', message: 'Server temporarily unavailable' }, headers: retryHeader };
    case 'auth':
      return { status: 401, body: { detail: 'Unauthorized - invalid credentials' } };
    case '403':
      return { status: 403, body: { detail: 'Forbidden - insufficient permissions' } };
    case '404':
      return { status: 404, body: { detail: 'Not Found - resource does not exist' } };
    default:
      return undefined;
  }
}

/** §6: fault injection. */
export const faultRoutes: Route[] = [
  get('/api/v1/flaky', ({ read, state }) => {
    const q = read({ page: intParam({ default: 1 }), fail_on: strParam('') });
    const attempts = (state.flakyAttempts.get(q.page) ?? 0) + 1;
    state.flakyAttempts.set(q.page, attempts);
    if (failPages(q.fail_on).includes(q.page) && attempts === 1) throw detailError(500, 'Simulated failure');
    return { body: itemPage(q.page) };
  }),

  post('/api/v1/flaky/reset', ({ state }) => {
    state.flakyAttempts.clear();
    return { body: { status: 'reset', message: 'Flaky endpoint counters cleared' } };
  }),

  get('/api/v1/errors', async ({ read, state, limits }) => {
    const q = read({ page: intParam({ default: 1 }), error_type: optionalStrParam(), retry_after: intParam({ default: 5 }) });
    if (q.error_type === 'timeout') {
      await state.sleep(limits.ERRORS_TIMEOUT_SECONDS);
      return { body: { data: [], simulated: 'timeout' } };
    }
    return simulatedError(q.error_type, q.retry_after) ?? { body: itemPage(q.page) };
  }),

  get('/api/v1/rate-limited', ({ read, state }) => {
    const q = read({ page: intParam({ default: 1 }), requests_per_second: intParam({ default: 2 }) });
    const now = state.clock.monotonicMs();
    const decision = state.rateLimitedWindow.tryAcquire(q.requests_per_second, now);
    if (!decision.accepted) {
      const waitSeconds = decision.oldestMs === undefined ? 0 : 1 - (now - decision.oldestMs) / 1000;
      throw new HttpError(
        429,
        { error: 'Rate limit exceeded', requests_in_window: decision.inWindow, limit: q.requests_per_second },
        { 'Retry-After': String(Math.max(1, Math.trunc(waitSeconds) + 1)) },
      );
    }
    return {
      body: {
        ...itemPage(q.page, { rate_limited: true }),
        rate_limit: { requests_in_window: decision.inWindow, limit: q.requests_per_second },
      },
    };
  }),
];
