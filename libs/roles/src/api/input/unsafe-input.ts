import type { NextFunction, Request, Response } from 'express';
import { storable } from '@noetl/dsl';
import { RuntimeError } from '@noetl/runtime';
import { isPublicApi } from '../public-api';

/** How deep a JSON body or query may nest (deeper ones overflowed the validation's recursion: 500). */
export const MAX_INPUT_DEPTH = 100;

const CONTROL = /[\u0000-\u001f\u007f]/;
/** How much of a deep path an error message shows. */
const SHOWN_PATH = 120;

/**
 * Why a request path may not be served, or undefined: every segment must
 * decode, and none may be `.` or `..`, hold a `/` or `\` once decoded (a
 * traversal in an id or a name, `GET /api/credentials/..%2F`), or a control
 * character (NUL among them, which no PostgreSQL text holds).
 */
export function pathProblem(path: string): string | undefined {
  for (const raw of path.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return `the path segment "${raw}" is not valid percent-encoded UTF-8`;
    }
    if (segment === '.' || segment === '..' || segment.includes('/') || segment.includes('\\'))
      return `the path segment ${JSON.stringify(segment)} is not an id or a name`;
    if (CONTROL.test(segment)) return `the path segment ${JSON.stringify(segment)} holds a control character`;
  }
  return undefined;
}

/**
 * Why a parsed JSON value (a body, a query) may not be taken, or undefined:
 * it nests deeper than `MAX_INPUT_DEPTH`, a key or a string holds a NUL
 * character or a lone UTF-16 surrogate, or a number is infinite (PostgreSQL's
 * text and jsonb refuse all three, which answered 500). Walked with an explicit stack: depth cannot
 * overflow it. Names the first offending place.
 */
export function valueProblem(value: unknown, root: string): string | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { value: node, path, depth } = stack.pop()!;
    if (typeof node === 'string') {
      if (!storable(node)) return `${shown(path)}: text may not hold a NUL character or a lone UTF-16 surrogate`;
      continue;
    }
    if (typeof node === 'number' && !Number.isFinite(node))
      return `${shown(path)}: the number is too large (JSON like 1e400 reads as infinity, which no database stores)`;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= MAX_INPUT_DEPTH) return `${shown(path)}: the input nests deeper than ${MAX_INPUT_DEPTH} levels`;
    if (Array.isArray(node)) {
      node.forEach((item, index) => stack.push({ value: item, path: `${path}[${index}]`, depth: depth + 1 }));
      continue;
    }
    for (const key of Object.keys(node)) {
      if (!storable(key)) return `${shown(path)}: a key may not hold a NUL character or a lone UTF-16 surrogate`;
      stack.push({ value: (node as Record<string, unknown>)[key], path: `${path}.${key}`, depth: depth + 1 });
    }
  }
  return undefined;
}

function shown(path: string): string {
  return path.length <= SHOWN_PATH ? path : `${path.slice(0, SHOWN_PATH)}...`;
}

/**
 * Refuses, with 400 and the one error body, what the runtime cannot store or
 * serve, before any handler runs: a bad path on every route, and a bad query
 * or body on the public API (the workers' control plane reports tool
 * results, which its own validation takes as they are).
 */
export function refuseUnsafeInput(request: Request, _response: Response, next: NextFunction): void {
  const problem =
    pathProblem(request.path) ??
    (isPublicApi(request) ? (valueProblem(request.query, 'query') ?? valueProblem(request.body, 'body')) : undefined);
  next(problem === undefined ? undefined : new RuntimeError('invalid_request', problem));
}
