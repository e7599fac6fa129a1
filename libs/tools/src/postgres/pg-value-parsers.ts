import { types } from 'pg';

type TextParser = (text: string) => unknown;

/**
 * Type parsers for result values, given to each pool (pg's global parsers are left alone).
 * JSON/JSONB come back parsed (pg's default). int8 is a number when it is a safe integer, else a
 * string; numeric is a number when that is exact to 15 significant digits, else a string.
 * Dates and timestamps stay text in ISO form (`2025-01-02`, `2025-01-02T03:04:05.123456`;
 * timestamptz as UTC `...Z`), bytea is pg's hex text (`\x...`), intervals are pg's text.
 */
export function int8Value(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

export function numericValue(text: string): number | string {
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  const significant = text.replace(/^[-+]/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return significant.length <= 15 ? n : text;
}

export function timestampValue(text: string): string {
  return text.replace(' ', 'T');
}

export function timestamptzValue(text: string): string {
  const date = new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

const identity: TextParser = (text) => text;
type TypeId = Parameters<typeof types.getTypeParser>[0];
const TEXT_ARRAY = 1009 as TypeId;
const parseStringArray = types.getTypeParser(TEXT_ARRAY, 'text') as (text: string) => unknown;

function arrayOf(element: TextParser): TextParser {
  return (text) => mapNested(parseStringArray(text), element);
}

function mapNested(value: unknown, element: TextParser): unknown {
  if (Array.isArray(value)) return value.map((v) => mapNested(v, element));
  return typeof value === 'string' ? element(value) : value;
}

const OVERRIDES: Record<number, TextParser> = {
  20: int8Value,
  1016: arrayOf(int8Value),
  1700: numericValue,
  1231: arrayOf(numericValue),
  1082: identity, // date
  1182: arrayOf(identity),
  1114: timestampValue,
  1115: arrayOf(timestampValue),
  1184: timestamptzValue,
  1185: arrayOf(timestamptzValue),
  1186: identity, // interval
  1187: arrayOf(identity),
  17: identity, // bytea
  1001: arrayOf(identity),
};

/** The `types` option of a pg.Pool: the overrides above, pg's defaults otherwise. */
export const resultTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (format !== 'binary') {
      const override = OVERRIDES[oid];
      if (override) return override;
    }
    return types.getTypeParser(oid as TypeId, format ?? 'text') as (value: string) => unknown;
  },
};
