import type { Problem } from '../model';

/** `file:line:column path message`, the line `noetl validate` prints per problem. */
export function formatProblem(file: string, p: Problem): string {
  const where = p.line === undefined ? file : p.column === undefined ? `${file}:${p.line}` : `${file}:${p.line}:${p.column}`;
  return p.path ? `${where} ${p.path} ${p.message}` : `${where} ${p.message}`;
}
