import { readFileSync } from 'node:fs';
import { parseDocument, type Document } from 'yaml';

export interface PftPlaybook {
  /** The playbook with its path and frame size set, ready to register. */
  variant(path: string, maxRows: number): string;
  /** The `start` step's SQL: creates the bench table. */
  setupSql: string;
  /** The page sink's SQL: $1 the page's records as JSON, $2 the page number. */
  pageInsertSql: string;
}

/** Reads bench/pft/pft.yaml; the plain variant takes its SQL from here so both variants write alike. */
export function readPftPlaybook(file: string): PftPlaybook {
  const text = readFileSync(file, 'utf8');
  const doc = parseDocument(text);
  const loopStep = stepIndex(doc, 'fetch_domain');
  return {
    variant: (path, maxRows) => {
      const copy = parseDocument(text);
      copy.setIn(['metadata', 'path'], path);
      copy.setIn(['workflow', loopStep, 'loop', 'spec', 'frame', 'max_rows'], maxRows);
      return copy.toString();
    },
    setupSql: sqlAt(doc, ['workflow', stepIndex(doc, 'start'), 'tool', 'command']),
    pageInsertSql: sqlAt(doc, ['workflow', loopStep, 'retry', 0, 'then', 'per_iteration', 'sink', 'tool', 'command']),
  };
}

function stepIndex(doc: Document, name: string): number {
  const { workflow } = doc.toJS() as { workflow?: { step?: string }[] };
  const index = (workflow ?? []).findIndex((step) => step.step === name);
  if (index < 0) throw new Error(`pft.yaml has no step ${name}`);
  return index;
}

function sqlAt(doc: Document, path: (string | number)[]): string {
  const sql = doc.getIn(path);
  if (typeof sql !== 'string') throw new Error(`pft.yaml has no SQL at ${path.join('.')}`);
  return sql;
}
