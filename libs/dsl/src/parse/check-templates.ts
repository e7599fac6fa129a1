import { isMap, isScalar, isSeq, Scalar } from 'yaml';
import { ExpressionEngine, isTemplate } from '../expressions';
import type { ProblemCollector } from './problem-collector';
import { indexPath, keyPath } from './raw-shape';
import type { Position, YamlSource } from './source-positions';

/** Only syntax is checked, so the clock and ids are fixed. */
const syntaxEngine = new ExpressionEngine({
  now: () => new Date(0),
  uuid: () => '00000000-0000-0000-0000-000000000000',
});

/**
 * Every string value holding `{{`/`{%` must be a well-formed template
 * (DSL.md s1). A problem points at the template's own line when the engine
 * says which line of a multi-line string is wrong.
 */
export function checkTemplates(source: YamlSource, problems: ProblemCollector): void {
  walk(source.root, '', source, problems);
}

function walk(node: unknown, path: string, source: YamlSource, problems: ProblemCollector): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      walk(pair.value, keyPath(path, key), source, problems);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => walk(item, indexPath(path, index), source, problems));
  } else if (isScalar(node) && typeof node.value === 'string' && isTemplate(node.value)) {
    for (const error of syntaxEngine.checkSyntax(node.value)) {
      problems.addAt(path, `malformed template: ${error.message}`, errorPosition(node, error, source));
    }
  }
}

function errorPosition(node: Scalar, error: { line?: number; column?: number }, source: YamlSource): Position {
  const start = source.positionOf(node.range?.[0] ?? 0);
  const block = node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED;
  if (error.line === undefined || error.line < 1) {
    return block ? contentStart(start.line + 1, 1, source) : start;
  }
  if (block) return contentStart(start.line + error.line, error.column ?? 1, source);
  if (error.line === 1) {
    const quote = node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE ? 1 : 0;
    return { line: start.line, column: start.column + quote + Math.max((error.column ?? 1) - 1, 0) };
  }
  // A flow scalar over several source lines: the line is right (unless an escaped
  // `\n` made the extra line), the column approximate.
  const last = source.positionOf(node.range?.[1] ?? 0).line;
  const line = Math.min(start.line + error.line - 1, last);
  return line === start.line ? start : contentStart(line, error.column ?? 1, source);
}

/** Column `column` of a block scalar's content line (after its indentation). */
function contentStart(line: number, column: number, source: YamlSource): Position {
  const indent = /^\s*/.exec(source.lineText(line))?.[0].length ?? 0;
  return { line, column: indent + Math.max(column, 1) };
}
