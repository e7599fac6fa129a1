import type { Limits } from '../limits';
import type { ServerState } from '../server-state';
import type { ParamSchema, ParamValues } from './params';

export type Method = 'GET' | 'POST';

/** What a handler answers; `status` defaults to 200. Every body is sent as JSON. */
export interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteContext {
  readonly state: ServerState;
  readonly limits: Limits;
  /** The request's own `scheme://host:port`. */
  readonly baseUrl: string;
  /** Validates query (and path) parameters; throws a 422 listing every issue. */
  read<Q extends ParamSchema, P extends ParamSchema = Record<string, never>>(query: Q, path?: P): ParamValues<Q> & ParamValues<P>;
}

export interface Route {
  method: Method;
  /** A path such as `/api/v1/pft/batch/{data_type}`; `{name}` matches one non-empty segment. */
  path: string;
  handle(ctx: RouteContext): Reply | Promise<Reply>;
}

export const get = (path: string, handle: Route['handle']): Route => ({ method: 'GET', path, handle });
export const post = (path: string, handle: Route['handle']): Route => ({ method: 'POST', path, handle });
