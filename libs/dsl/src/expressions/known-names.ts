/** Member names a template may never read or write, statically or at run time. */
export const FORBIDDEN_MEMBERS: ReadonlySet<string> = new Set([
  'constructor',
  'prototype',
  '__proto__',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

/** The filters, tests and functions an engine offers; anything else is refused. */
export interface KnownNames {
  filters: ReadonlySet<string>;
  tests: ReadonlySet<string>;
  functions: ReadonlySet<string>;
}
