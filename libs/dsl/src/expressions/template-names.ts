import { isTemplate } from './expression-engine';
import { LruCache } from './lru-cache';
import { childNode, isNode, type NjNode } from './nunjucks-internals';
import { parseTemplate } from './safe-parser';

const cache = new LruCache<string, ReadonlySet<string>>(4096);

/**
 * The names a template reads from its scope: every bare name in it (a
 * function's or filter's own name aside). Jinja has no way to reach a scope
 * name that is not spelled out (`ctx[key]` reads `ctx`), so a scope holding
 * these names renders the template exactly as the whole scope would. Names
 * that are not scope reads (a test's name after `is`, what `{% set %}` and
 * loops assign) may be included too, which costs nothing. A template that does not parse reads nothing
 * (rendering it fails anyway). Strings without template syntax read nothing.
 */
export function templateNames(template: string): ReadonlySet<string> {
  if (!isTemplate(template)) return EMPTY;
  let names = cache.get(template);
  if (!names) {
    const found = new Set<string>();
    try {
      collect(parseTemplate(template), found);
    } catch {
      // Malformed: it fails when rendered, whatever the scope holds.
    }
    names = found;
    cache.set(template, names);
  }
  return names;
}

/** `templateNames` of every string inside a JSON-like value (keys are not templates). */
export function namesReadBy(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    for (const name of templateNames(value)) into.add(name);
  } else if (Array.isArray(value)) {
    for (const item of value) namesReadBy(item, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) namesReadBy((value as Record<string, unknown>)[key], into);
  }
  return into;
}

const EMPTY: ReadonlySet<string> = new Set();

function collect(node: NjNode, names: Set<string>): void {
  switch (node.typename) {
    case 'Symbol':
      names.add(String(node['value']));
      return;
    case 'FunCall': {
      // `now()`: the callee is a global function, not a scope name; `x.method()` reads `x`.
      const callee = childNode(node, 'name');
      if (callee && callee.typename !== 'Symbol') collect(callee, names);
      const args = childNode(node, 'args');
      if (args) collect(args, names);
      return;
    }
    case 'Filter':
      return visitFields(node, names, ['name']);
    case 'Pair':
      // A dict key or keyword argument is a name, not a read (`{a: x}`, `map(attribute="id")`).
      return visitFields(node, names, ['key']);
    default:
      return visitFields(node, names, []);
  }
}

function visitFields(node: NjNode, names: Set<string>, skip: readonly string[]): void {
  for (const field of node.fields) {
    if (skip.includes(field)) continue;
    const value = node[field];
    if (isNode(value)) collect(value, names);
    else if (Array.isArray(value)) for (const item of value) if (isNode(item)) collect(item, names);
  }
}

/** How a template uses names beyond reading them from its scope. */
export interface NameUses {
  /** Bound by the template itself (`{% for x %}`, `{% set x %}`, macro parameters) or a test's name (`is defined`): not scope reads. */
  own: ReadonlySet<string>;
  /** Names whose members are read (`x.y`, `x['y']`): an undefined one fails the render. */
  dereferenced: ReadonlySet<string>;
}

/** The `NameUses` of a template; empty for text without template syntax or a template that does not parse. */
export function nameUses(template: string): NameUses {
  const uses = { own: new Set<string>(), dereferenced: new Set<string>() };
  if (!isTemplate(template)) return uses;
  try {
    collectUses(parseTemplate(template), uses);
  } catch {
    // Malformed: reported by the syntax check.
  }
  return uses;
}

/** The fields whose names a node binds (or, for `Is`, names as a test). */
const OWN_FIELDS: Readonly<Record<string, readonly string[]>> = { For: ['name'], Set: ['targets'], Macro: ['args'], Is: ['right'] };

function collectUses(node: NjNode, uses: { own: Set<string>; dereferenced: Set<string> }): void {
  const own = OWN_FIELDS[node.typename] ?? [];
  if (node.typename === 'LookupVal') {
    const target = childNode(node, 'target');
    if (target?.typename === 'Symbol') uses.dereferenced.add(String(target['value']));
  }
  for (const field of node.fields) {
    const value = node[field];
    const children = Array.isArray(value) ? value.filter(isNode) : isNode(value) ? [value] : [];
    for (const child of children) {
      if (own.includes(field)) collect(child, uses.own);
      collectUses(child, uses);
    }
  }
}
