import type { JsonObject } from '@noetl/event-kernel';
import type { KeychainEntry } from '../model';

/** `keychain.name`, `keychain['name']`, `keychain["name"]`; any other use of `keychain` reads it dynamically. */
const NAMED_REFERENCE = /\bkeychain\s*(?:\.\s*([A-Za-z_$][\w$]*)|\[\s*(['"])([^'"]*)\2\s*\])/g;
const ANY_REFERENCE = /\bkeychain\b/g;

/**
 * The playbook's `keychain:` entries that `value` (a command's or loop body's spec, unrendered)
 * reads, and the entries those read in turn, in declaration order, each as `{name, ...spec}`.
 * The worker resolves exactly these (DSL.md s7), so a command names every credential it may
 * ask for. A template that reads `keychain` other than by a literal name gets every entry.
 */
export function keychainReferences(entries: readonly KeychainEntry[], value: unknown): JsonObject[] {
  if (entries.length === 0) return [];
  const wanted = new Set<string>();
  const pending = [value];
  let everything = false;
  while (pending.length > 0 && !everything) {
    for (const text of stringsIn(pending.shift())) {
      const named = [...text.matchAll(NAMED_REFERENCE)];
      if (named.length < (text.match(ANY_REFERENCE)?.length ?? 0)) everything = true;
      for (const match of named) {
        const name = match[1] ?? match[3] ?? '';
        const entry = entries.find((e) => e.name === name);
        if (entry && !wanted.has(name)) {
          wanted.add(name);
          pending.push(entry.spec);
        }
      }
    }
  }
  return entries.filter((entry) => everything || wanted.has(entry.name)).map((entry) => ({ name: entry.name, ...entry.spec }));
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}
