import type { Request } from 'express';

/**
 * Whose budget a request spends. Today the client's address; once requests
 * carry API keys, the key (its id, never the secret) is the one to use, so
 * that clients behind one proxy or NAT do not share a budget.
 */
export function throttleKeyOf(request: Request): string {
  return request.ip ?? request.socket.remoteAddress ?? 'unknown';
}
