import type { KeychainEntry, WorkbookEntry } from '../model';
import { WORKBOOK_ENTRY_KEYS } from './allowed-keys';
import { normaliseTask } from './normalise-tool';
import { checkKeys, type ParseContext } from './parse-context';
import { has, indexPath, isNonEmptyString, isRawMap, keyPath, toJsonObject } from './raw-shape';
import { checkJumpTargets } from './validate-references';

/**
 * `workbook:` entries `{name, tool, assert?}`. `assert` is metadata; written
 * beside `tool` or inside it, it ends up in the task config as `assert`.
 */
export function normaliseWorkbook(raw: unknown, ctx: ParseContext): WorkbookEntry[] {
  const entries: WorkbookEntry[] = [];
  for (const { item, path, name } of namedList(raw, 'workbook', ctx)) {
    checkKeys(item, WORKBOOK_ENTRY_KEYS, path, ctx);
    const toolPath = keyPath(path, 'tool');
    if (!isRawMap(item.tool)) {
      ctx.problems.add(has(item, 'tool') ? toolPath : path, 'a workbook entry needs "tool": one tool mapping with a "kind"');
      continue;
    }
    const tool = has(item, 'assert') && !has(item.tool, 'assert') ? { ...item.tool, assert: item.assert } : item.tool;
    const task = normaliseTask(tool, toolPath, ctx, { pipeline: false, name });
    if (!task) continue;
    checkJumpTargets([{ task, raw: tool, path: toolPath }], ctx);
    entries.push({ name, task });
  }
  return entries;
}

/** `keychain:` declarations, kept as written (DSL.md s7). */
export function normaliseKeychain(raw: unknown, ctx: ParseContext): KeychainEntry[] {
  return namedList(raw, 'keychain', ctx).map(({ item, name }) => {
    const { name: _name, ...spec } = item;
    return { name, spec: toJsonObject(spec) };
  });
}

/** A list of mappings with unique non-empty `name`s. */
function namedList(raw: unknown, section: string, ctx: ParseContext): Array<{ item: Record<string, unknown>; path: string; name: string }> {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    ctx.problems.add(section, `"${section}" must be a list`);
    return [];
  }
  const firstLine = new Map<string, number>();
  const out: Array<{ item: Record<string, unknown>; path: string; name: string }> = [];
  raw.forEach((item, index) => {
    const path = indexPath(section, index);
    if (!isRawMap(item)) {
      ctx.problems.add(path, `a ${section} entry must be a mapping with "name"`);
      return;
    }
    if (!isNonEmptyString(item.name)) {
      ctx.problems.add(has(item, 'name') ? keyPath(path, 'name') : path, `a ${section} entry needs a "name"`);
      return;
    }
    const first = firstLine.get(item.name);
    if (first !== undefined) {
      ctx.problems.add(keyPath(path, 'name'), `duplicate ${section} name "${item.name}" (first at line ${first})`);
      return;
    }
    firstLine.set(item.name, ctx.problems.lineOf(keyPath(path, 'name')));
    out.push({ item, path, name: item.name });
  });
  return out;
}
