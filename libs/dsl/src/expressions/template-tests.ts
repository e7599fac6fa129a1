/**
 * The `is` tests of DSL.md §6 with Jinja's meaning (`none` is only null,
 * `mapping` is a dict, `sequence` a list, string or dict, booleans are not
 * numbers), replacing nunjucks' versions of the same name.
 */
import { isCallable } from './callables';
import { isPlainObject, pyEquals, truthy, unwrapSafe } from './python-values';

export type TemplateTest = (this: unknown, value: unknown, ...args: unknown[]) => boolean;

const isNumber = (v: unknown): boolean => typeof v === 'number';

export const TESTS: ReadonlyMap<string, TemplateTest> = new Map<string, TemplateTest>([
  ['defined', (v) => v !== undefined],
  ['undefined', (v) => v === undefined],
  ['none', (v) => v === null],
  ['null', (v) => v === null],
  ['true', (v) => v === true],
  ['false', (v) => v === false],
  ['boolean', (v) => typeof v === 'boolean'],
  ['number', isNumber],
  ['integer', (v) => Number.isInteger(v)],
  ['float', (v) => isNumber(v) && !Number.isInteger(v)],
  ['string', (v) => typeof unwrapSafe(v) === 'string'],
  ['mapping', (v) => isPlainObject(v)],
  ['sequence', (v) => Array.isArray(v) || typeof unwrapSafe(v) === 'string' || isPlainObject(v)],
  ['iterable', (v) => Array.isArray(v) || typeof unwrapSafe(v) === 'string' || isPlainObject(v)],
  ['callable', (v) => isCallable(v)],
  ['truthy', (v) => truthy(v)],
  ['falsy', (v) => !truthy(v)],
  ['eq', (v, other) => pyEquals(v, other)],
  ['equalto', (v, other) => pyEquals(v, other)],
  ['ne', (v, other) => !pyEquals(v, other)],
  [
    'in',
    (v, container) =>
      Array.isArray(container)
        ? container.some((c) => pyEquals(c, v))
        : typeof container === 'string'
          ? typeof v === 'string' && container.includes(v)
          : isPlainObject(container) && typeof v === 'string' && Object.prototype.hasOwnProperty.call(container, v),
  ],
  ['lower', (v) => typeof v === 'string' && v.toLowerCase() === v],
  ['upper', (v) => typeof v === 'string' && v.toUpperCase() === v],
]);

/** nunjucks built-in tests kept unchanged. */
export const KEPT_BUILTIN_TESTS: readonly string[] = [
  'divisibleby',
  'escaped',
  'even',
  'odd',
  'ge',
  'gt',
  'greaterthan',
  'le',
  'lt',
  'lessthan',
  'sameas',
];
