import { inServerSpan, tracingEnabled } from '@noetl/runtime';
import type { NextFunction, Request, Response } from 'express';

/**
 * A request that carries a W3C `traceparent` (a worker's call to the
 * control plane, with traces on) is served inside a span that is the
 * caller's span's child: the api's part of a command shows under the
 * worker's command span. Named by its route once routed
 * (`POST /api/commands/:id/complete`), so names do not grow with ids.
 */
export function traceRequests(req: Request, res: Response, next: NextFunction): void {
  const traceparent = req.headers.traceparent;
  if (!tracingEnabled() || typeof traceparent !== 'string') {
    next();
    return;
  }
  void inServerSpan(`${req.method} ${req.path}`, traceparent, { 'http.request.method': req.method }, (span) => {
    const ended = new Promise<void>((resolve) => {
      res.once('close', () => {
        const route: unknown = (req.route as { path?: unknown } | undefined)?.path;
        if (typeof route === 'string') span.rename(`${req.method} ${route}`);
        span.set({ 'http.response.status_code': res.statusCode });
        resolve();
      });
    });
    next();
    return ended;
  });
}
