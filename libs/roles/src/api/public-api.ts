import type { Request } from 'express';

/** The routes the workers call: claims, heartbeats, reports, children, events, their registry beat. */
const CONTROL_PLANE = /^\/api\/(?:commands|frames|stages|children|events)(?:\/|$)|^\/api\/workers\/[^/]+\/heartbeat$/;

/**
 * The public API: every route under /api but the workers' control plane.
 * Only the public API is rate limited (a worker's traffic grows with the
 * work, and a throttled report would only run the work again) and has its
 * query and body screened for what no database stores (a worker reports
 * tool results as they are).
 */
export function isPublicApi(request: Request): boolean {
  return request.path.startsWith('/api/') && !CONTROL_PLANE.test(request.path);
}
