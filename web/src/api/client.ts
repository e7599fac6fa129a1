import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';
import { session } from './session';

export type Schemas = components['schemas'];

/** Every call sends the tab's key as a Bearer token; a 401 signs the tab out. */
const bearer: Middleware = {
  onRequest({ request }) {
    const key = session.key();
    if (key) request.headers.set('Authorization', `Bearer ${key}`);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) session.signOut();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(bearer);

/** An API error body ({code, message}) as an Error, for react-query. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The data of an openapi-fetch answer, or its error body thrown. */
export async function data<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || data === undefined) {
    const body = (error ?? {}) as { code?: string; message?: string };
    throw new ApiError(response.status, body.code ?? String(response.status), body.message ?? response.statusText);
  }
  return data;
}
