import { deepMerge } from './policy-values';

/** Tool aliases a `next_call` may use, resolved as the parser resolves them in a task's config. */
const NEXT_CALL_ALIASES: Readonly<Record<string, string>> = {
  endpoint: 'url',
  payload: 'body',
  json: 'body',
  data: 'body',
  args: 'input',
};

/**
 * The next request of a continuation: the previous request with the rendered
 * `next_call` merged over it. Mappings (`params`, `headers`, `input`, a JSON
 * `body`) are deep-merged, so `next_call: {params: {page: 2}}` keeps the other
 * params; strings, lists and scalars (`url`, a text body) replace. Aliases
 * (`endpoint`, `payload`/`json`/`data`, `args`) land on their canonical key.
 * An `undefined` value changes nothing; `null` is written. Inputs are not mutated.
 */
export function mergeNextCall(previous: Record<string, unknown>, renderedNextCall: Record<string, unknown>): Record<string, unknown> {
  const next: Record<string, unknown> = { ...previous };
  for (const [written, value] of Object.entries(renderedNextCall)) {
    if (value === undefined) continue;
    const key = NEXT_CALL_ALIASES[written] ?? written;
    next[key] = deepMerge(next[key], value);
  }
  return next;
}
