import { get, type Route } from '../http/route';

/** §1: `GET /health`. */
export const healthRoutes: Route[] = [get('/health', () => ({ body: { status: 'ok' } }))];
