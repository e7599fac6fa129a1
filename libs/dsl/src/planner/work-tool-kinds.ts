import { TOOL_KINDS, type Json, type JsonObject, type ToolKind } from '../model';
import { isJsonObject } from '../scope';

/**
 * The tool kinds a worker runs to do a piece of work: every task of the
 * spec's tool (pipeline tasks, task policies' per-iteration sinks), its sink
 * (a table sink writes with `postgres`) and a cursor loop's claim. A worker
 * restricted to some kinds (NOETL_WORKER_TOOLS) may take the work only when it
 * runs all of them. Works on a command's spec and on a loop body's spec alike.
 */
export function workToolKinds(spec: JsonObject): ToolKind[] {
  const kinds = new Set<ToolKind>();
  const visit = (value: Json | undefined): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!isJsonObject(value)) return;
    const kind = value['kind'];
    if (isToolKind(kind) && isJsonObject(value['config'])) kinds.add(kind);
    if (kind === 'table' && typeof value['table'] === 'string') kinds.add('postgres');
    for (const child of Object.values(value)) visit(child);
  };
  visit(spec['tool']);
  visit(spec['sink']);
  const cursor = spec['cursor'];
  if (isJsonObject(cursor) && isToolKind(cursor['kind'])) kinds.add(cursor['kind']);
  return [...kinds].sort();
}

function isToolKind(value: unknown): value is ToolKind {
  return typeof value === 'string' && (TOOL_KINDS as readonly string[]).includes(value);
}
