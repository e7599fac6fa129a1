import type { Request } from 'express';
import { isPublicApi } from '../public-api';
import { throttleKeyOf } from './throttle-key';

const request = (path: string, ip = '10.0.0.7', subject?: string): Request =>
  ({ path, ip, socket: { remoteAddress: ip }, ...(subject ? { principal: { subject } } : {}) }) as unknown as Request;

describe('rate limits', () => {
  it('spend the budget of the caller the AuthGuard found, else (auth off) of the client address', () => {
    expect(throttleKeyOf(request('/api/execute', '192.0.2.1', 'key:0123456789abcdef'))).toBe('key:0123456789abcdef');
    expect(throttleKeyOf(request('/api/execute', '192.0.2.1', 'token:ada'))).toBe('token:ada');
    expect(throttleKeyOf(request('/api/execute', '192.0.2.1', 'local'))).toBe('192.0.2.1');
    expect(throttleKeyOf(request('/api/execute', '192.0.2.1'))).toBe('192.0.2.1');
  });

  it.each([
    ['/api/execute', true],
    ['/api/catalog/register', true],
    ['/api/executions/1/events', true],
    ['/api/credentials/x', true],
    ['/api/workers', true],
    ['/api/commands/1/complete', false],
    ['/api/stages/1/frames/claim', false],
    ['/api/frames/1/commit', false],
    ['/api/children', false],
    ['/api/events', false],
    ['/api/workers/w-1/heartbeat', false],
    ['/health/ready', false],
    ['/metrics', false],
  ])('%s is the public API (rate limited, screened): %s', (path, limited) => {
    expect(isPublicApi(request(path))).toBe(limited);
  });
});
