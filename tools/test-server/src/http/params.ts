import { HttpError } from './http-error';

/**
 * FastAPI-like validation of query and path parameters (TEST_SERVER.md §0):
 * ints are base-10 only, floats accept integers and decimals, a missing
 * required value or a value out of `ge`/`le` bounds is a 422 whose body is
 * `{"detail": [issue, ...]}` with every issue found.
 */

export type ParamLocation = 'query' | 'path';

export interface ValidationIssue {
  type: string;
  loc: [ParamLocation, string];
  msg: string;
  input: string | null;
  ctx?: Record<string, number>;
}

type Issue = Omit<ValidationIssue, 'loc' | 'input'>;
type Parsed<T> = { ok: true; value: T } | { ok: false; issue: Issue };

/** How to read one parameter from its raw text (`undefined` when absent). */
export interface ParamSpec<T> {
  read(raw: string | undefined): Parsed<T>;
}

export type ParamSchema = Record<string, ParamSpec<unknown>>;
export type ParamValues<S extends ParamSchema> = { [K in keyof S]: S[K] extends ParamSpec<infer T> ? T : never };

export interface Bounds {
  ge?: number;
  le?: number;
}

const INT_TEXT = /^[+-]?\d+$/;
const FLOAT_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const MISSING: Issue = { type: 'missing', msg: 'Field required' };

export const validationError = (issues: ValidationIssue[]): HttpError => new HttpError(422, { detail: issues });

/** An int query/path parameter; absent means `default`, or 422 when there is none. */
export function intParam(options: Bounds & { default?: number } = {}): ParamSpec<number> {
  return {
    read(raw) {
      if (raw === undefined) return fallback(options.default);
      const text = raw.trim();
      const value = INT_TEXT.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(value)) {
        return fail('int_parsing', 'Input should be a valid integer, unable to parse string as an integer');
      }
      return checkBounds(value, options);
    },
  };
}

/** A float query parameter: integers and decimals, finite only. */
export function floatParam(options: Bounds & { default?: number } = {}): ParamSpec<number> {
  return {
    read(raw) {
      if (raw === undefined) return fallback(options.default);
      const text = raw.trim();
      if (!FLOAT_TEXT.test(text)) {
        return fail('float_parsing', 'Input should be a valid number, unable to parse string as a number');
      }
      const value = Number(text);
      if (!Number.isFinite(value)) return fail('finite_number', 'Input should be a finite number');
      return checkBounds(value, options);
    },
  };
}

/** A string parameter passed through as sent (an empty string stays empty). */
export function strParam(defaultValue: string): ParamSpec<string> {
  return { read: (raw) => ({ ok: true, value: raw ?? defaultValue }) };
}

export function requiredStrParam(): ParamSpec<string> {
  return { read: (raw) => (raw === undefined ? { ok: false, issue: MISSING } : { ok: true, value: raw }) };
}

export function optionalStrParam(): ParamSpec<string | undefined> {
  return { read: (raw) => ({ ok: true, value: raw }) };
}

/** Where raw values come from: one lookup per location. */
export type ParamLookup = (name: string) => string | undefined;

/**
 * Reads the path parameters, then the query parameters; throws one 422
 * listing every issue found.
 */
export function readParams<Q extends ParamSchema, P extends ParamSchema = Record<string, never>>(
  query: { schema: Q; lookup: ParamLookup },
  path?: { schema: P; lookup: ParamLookup },
): ParamValues<Q> & ParamValues<P> {
  const values: Record<string, unknown> = {};
  const issues: ValidationIssue[] = [];
  const collect = (loc: ParamLocation, schema: ParamSchema, lookup: ParamLookup): void => {
    for (const [name, spec] of Object.entries(schema)) {
      const raw = lookup(name);
      const parsed = spec.read(raw);
      if (parsed.ok) values[name] = parsed.value;
      else {
        const { type, msg, ctx } = parsed.issue;
        issues.push({ type, loc: [loc, name], msg, input: raw ?? null, ...(ctx && { ctx }) });
      }
    }
  };
  if (path) collect('path', path.schema, path.lookup);
  collect('query', query.schema, query.lookup);
  if (issues.length > 0) throw validationError(issues);
  return values as ParamValues<Q> & ParamValues<P>;
}

function fallback(defaultValue: number | undefined): Parsed<number> {
  return defaultValue === undefined ? { ok: false, issue: MISSING } : { ok: true, value: defaultValue };
}

function fail(type: string, msg: string): Parsed<never> {
  return { ok: false, issue: { type, msg } };
}

function checkBounds(value: number, bounds: Bounds): Parsed<number> {
  if (bounds.ge !== undefined && !(value >= bounds.ge)) {
    return {
      ok: false,
      issue: { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${bounds.ge}`, ctx: { ge: bounds.ge } },
    };
  }
  if (bounds.le !== undefined && !(value <= bounds.le)) {
    return {
      ok: false,
      issue: { type: 'less_than_equal', msg: `Input should be less than or equal to ${bounds.le}`, ctx: { le: bounds.le } },
    };
  }
  return { ok: true, value };
}
