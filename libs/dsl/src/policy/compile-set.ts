import type { SetOp } from '../model';
import { asJson, childPath, describe, isRecord, type Report } from './policy-values';

/** Scope prefixes of a `set:` key; `vars` is the DSL's alias of `ctx` (DSL.md s6). */
const SCOPE_PREFIXES: Readonly<Record<string, SetOp['scope']>> = {
  ctx: 'ctx',
  vars: 'ctx',
  iter: 'iter',
  step: 'step',
};

/**
 * Compiles a `set:` mapping into SetOps, in document order.
 * `ctx.k` / `vars.k` -> ctx, `iter.k` -> iter, `step.k` -> step; a bare key
 * (dotted or not) gets `bareScope`. A key that is exactly a scope name with a
 * mapping value (`ctx: {a: 1}`) is the nested spelling of `ctx.a: 1`.
 * Values stay unrendered (templates or literals, native types kept).
 */
export function compileSet(raw: unknown, path: string, report: Report, bareScope: SetOp['scope']): SetOp[] {
  if (raw === undefined || raw === null) return [];
  if (!isRecord(raw)) {
    report(path, `set must be a mapping of key to value, got ${describe(raw)}`);
    return [];
  }
  const ops: SetOp[] = [];
  for (const [name, rawValue] of Object.entries(raw)) {
    const at = childPath(path, name);
    const nestedScope = SCOPE_PREFIXES[name];
    if (nestedScope !== undefined) {
      if (!isRecord(rawValue)) {
        report(at, `\`${name}\` alone is a scope: write \`${name}.<key>: value\` or \`${name}: {<key>: value}\``);
        continue;
      }
      for (const [key, value] of Object.entries(rawValue)) {
        pushOp(ops, nestedScope, key, value, childPath(at, key), report);
      }
      continue;
    }
    const { scope, key } = splitScope(name, bareScope);
    pushOp(ops, scope, key, rawValue, at, report);
  }
  return ops;
}

function splitScope(name: string, bareScope: SetOp['scope']): { scope: SetOp['scope']; key: string } {
  const dot = name.indexOf('.');
  if (dot > 0) {
    const scope = SCOPE_PREFIXES[name.slice(0, dot)];
    if (scope !== undefined) return { scope, key: name.slice(dot + 1) };
  }
  return { scope: bareScope, key: name };
}

function pushOp(ops: SetOp[], scope: SetOp['scope'], key: string, raw: unknown, at: string, report: Report): void {
  if (key.split('.').some((segment) => segment.trim() === '')) {
    report(at, `set key must be a name or a dotted path of names, got ${JSON.stringify(key)}`);
    return;
  }
  const value = asJson(raw, at, report);
  if (value === undefined) return;
  ops.push({ scope, key, value });
}
