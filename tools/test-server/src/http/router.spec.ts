import { get, post } from './route';
import { Router } from './router';

describe('Router', () => {
  const noop = () => ({ body: null });
  const router = new Router([get('/health', noop), post('/api/v1/flaky/reset', noop), get('/api/v1/pft/batch/{data_type}', noop)]);

  it('finds a route and its decoded path parameters', () => {
    const match = router.match('GET', '/api/v1/pft/batch/vital%5Fsigns');
    expect(match).toEqual(expect.objectContaining({ kind: 'found', params: { data_type: 'vital_signs' } }));
  });

  it('serves HEAD with GET routes', () => {
    expect(router.match('HEAD', '/health').kind).toBe('found');
  });

  it('answers 405 with the allowed methods when only the method differs', () => {
    expect(router.match('POST', '/health')).toEqual({ kind: 'method-not-allowed', allow: 'GET, HEAD' });
    expect(router.match('GET', '/api/v1/flaky/reset')).toEqual({ kind: 'method-not-allowed', allow: 'POST' });
  });

  it('answers 404 for an unknown path, an empty parameter or a trailing slash', () => {
    expect(router.match('GET', '/nope').kind).toBe('not-found');
    expect(router.match('GET', '/api/v1/pft/batch/').kind).toBe('not-found');
    expect(router.match('GET', '/health/').kind).toBe('not-found');
  });
});
