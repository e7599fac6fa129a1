import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { playbookSchema, TOOL_KINDS, type Json } from '@noetl/dsl';

const reference = readFileSync(join(__dirname, '..', '..', 'docs', 'language.md'), 'utf8');

/** Every key the schema (built from the parser's key lists) names, at any depth. */
function keysOf(schema: Json, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) keysOf(item, into);
  else if (typeof schema === 'object' && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value))
        for (const name of Object.keys(value)) into.add(name);
      keysOf(value, into);
    }
  }
  return into;
}

describe('docs/language.md, the language reference', () => {
  const keys = [...keysOf(playbookSchema())];

  it('finds the keys the validator accepts', () => {
    expect(keys).toEqual(
      expect.arrayContaining(['workflow', 'step', 'loop', 'cursor', 'max_rows', 'arcs', 'on_no_match', 'interval_seconds']),
    );
  });

  it('names every key the validator accepts, in code (`key`, `spec.key`, `key: value`) or as a YAML key of an example', () => {
    const named = (key: string): boolean => new RegExp(`\`[^\`\\n]*\\b${key}\\b[^\`\\n]*\`|^\\s*-?\\s*${key}:`, 'm').test(reference);
    expect(keys.filter((key) => !named(key))).toEqual([]);
  });

  it('names every tool kind', () => {
    expect(TOOL_KINDS.filter((kind) => !reference.includes(`\`${kind}\``))).toEqual([]);
  });
});
