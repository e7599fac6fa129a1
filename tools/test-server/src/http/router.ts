import type { Method, Route } from './route';

export type RouteMatch =
  { kind: 'found'; route: Route; params: Record<string, string> } | { kind: 'method-not-allowed'; allow: string } | { kind: 'not-found' };

type Segment = { literal: string } | { param: string };

interface CompiledRoute {
  route: Route;
  segments: Segment[];
}

const PARAM_SEGMENT = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Matches a method and a path the way Starlette does: the first route whose
 * path and method match wins; a path that matches only with another method is
 * a 405; no path match is a 404. HEAD is served by GET routes.
 */
export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((route) => ({ route, segments: compile(route.path) }));
  }

  match(method: string, rawPathname: string): RouteMatch {
    const wanted = method === 'HEAD' ? 'GET' : method;
    const parts = splitPath(rawPathname);
    const allowed = new Set<Method>();
    for (const { route, segments } of this.compiled) {
      const params = matchSegments(segments, parts);
      if (!params) continue;
      if (route.method === wanted) return { kind: 'found', route, params };
      allowed.add(route.method);
    }
    if (allowed.size === 0) return { kind: 'not-found' };
    const allow = [...allowed].flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
    return { kind: 'method-not-allowed', allow: allow.join(', ') };
  }
}

function compile(path: string): Segment[] {
  return path
    .split('/')
    .slice(1)
    .map((part) => {
      const param = PARAM_SEGMENT.exec(part)?.[1];
      return param === undefined ? { literal: part } : { param };
    });
}

function splitPath(rawPathname: string): string[] {
  return rawPathname
    .split('/')
    .slice(1)
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
}

function matchSegments(segments: readonly Segment[], parts: readonly string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i];
    const part = parts[i];
    if (segment === undefined || part === undefined) return undefined;
    if ('literal' in segment) {
      if (segment.literal !== part) return undefined;
    } else {
      if (part === '') return undefined;
      params[segment.param] = part;
    }
  }
  return params;
}
