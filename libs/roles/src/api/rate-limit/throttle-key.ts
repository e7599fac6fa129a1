import { LOCAL_SUBJECT } from '@noetl/runtime';
import type { Request } from 'express';
import type { AuthenticatedRequest } from '../auth/caller.decorator';

/**
 * Whose budget a request spends: its caller, as the AuthGuard (which runs
 * first) established it (`key:<id>`, `token:<subject>`), so that clients
 * behind one proxy or NAT do not share one; with auth off, the client's address.
 */
export function throttleKeyOf(request: Request & AuthenticatedRequest): string {
  const subject = request.principal?.subject;
  if (subject !== undefined && subject !== LOCAL_SUBJECT) return subject;
  return request.ip ?? request.socket.remoteAddress ?? 'unknown';
}
