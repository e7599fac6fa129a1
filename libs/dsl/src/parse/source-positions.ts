import { isMap, isNode, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair } from 'yaml';
import type { Problem } from '../model';

export interface Position {
  line: number;
  column: number;
}

/** Where a problem points: the offending value (default) or the key that holds it. */
export type Anchor = 'value' | 'key';

type PathToken = string | number;

const START: Position = { line: 1, column: 1 };

/**
 * A parsed YAML text that keeps its source positions, so that a problem path
 * such as `workflow[2].next.arcs[0].step` can be turned back into a line and column.
 */
export class YamlSource {
  private constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
    private readonly text: string,
  ) {}

  /** Parses the text; YAML syntax errors come back as problems and no source. */
  static parse(text: string): { source?: YamlSource; value?: unknown; problems: Problem[] } {
    const lines = new LineCounter();
    let doc: Document;
    try {
      doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, merge: true, uniqueKeys: true });
    } catch (error) {
      // The YAML parser recurses per level of block nesting: a document nested thousands deep overflows its stack.
      const message =
        error instanceof RangeError ? 'the document nests too deep to parse' : error instanceof Error ? error.message : String(error);
      return { problems: [{ path: '', ...START, message: `YAML error: ${message}` }] };
    }
    const source = new YamlSource(doc, lines, text);
    if (doc.errors.length > 0) {
      return {
        problems: doc.errors.map((error) => ({
          path: '',
          ...source.positionOf(error.pos[0]),
          message: `YAML syntax error: ${error.message}`,
        })),
      };
    }
    try {
      return { source, value: doc.toJS({ maxAliasCount: 1000 }), problems: [] };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { problems: [{ path: '', ...START, message: `YAML error: ${message}` }] };
    }
  }

  /** The document's root node (null for an empty document). */
  get root(): unknown {
    return this.doc.contents;
  }

  positionOf(offset: number): Position {
    const { line, col } = this.lines.linePos(offset);
    return { line, column: col };
  }

  /** The text of a 1-based line, without its line break. */
  lineText(line: number): string {
    const start = this.lines.lineStarts[line - 1];
    if (start === undefined) return '';
    const next = this.lines.lineStarts[line];
    return this.text.slice(start, next === undefined ? undefined : next).replace(/\r?\n$/, '');
  }

  /**
   * The position a problem path points at. A path that runs past what the
   * document holds (a missing key) points at its deepest existing ancestor.
   */
  locate(path: string, anchor: Anchor = 'value'): Position {
    const tokens = parsePath(path);
    let node: unknown = this.doc.contents;
    let best = isNode(node) ? this.start(node) : START;
    let i = 0;
    while (i < tokens.length) {
      const token = tokens[i];
      if (isSeq(node) && typeof token === 'number') {
        const child: unknown = node.items[token];
        if (!isNode(child)) break;
        node = child;
        best = this.start(child);
        i += 1;
        continue;
      }
      if (!isMap(node)) break;
      const found = findPair(node.items, tokens, i);
      if (!found) break;
      i = found.next;
      best = this.pairPosition(found.pair, i === tokens.length ? anchor : 'key');
      node = found.pair.value;
    }
    return best;
  }

  private pairPosition(pair: Pair, anchor: Anchor): Position {
    const value = pair.value;
    if (anchor === 'value' && isScalar(value) && value.value !== null && value.range) return this.positionOf(value.range[0]);
    if (isNode(pair.key)) return this.start(pair.key);
    return isNode(value) ? this.start(value) : START;
  }

  private start(node: Node): Position {
    return node.range ? this.positionOf(node.range[0]) : START;
  }
}

/** `a.b[2]["c.d"]` -> ['a', 'b', 2, 'c.d']; plain segments are split on dots (re-joined greedily on lookup). */
export function parsePath(path: string): PathToken[] {
  const tokens: PathToken[] = [];
  const pattern = /\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|([^.[\]]+)/g;
  for (const match of path.matchAll(pattern)) {
    if (match[1] !== undefined) tokens.push(Number(match[1]));
    else if (match[2] !== undefined) tokens.push(match[2].replace(/\\(.)/g, '$1'));
    else if (match[3] !== undefined) tokens.push(match[3]);
  }
  return tokens;
}

/** Finds the pair whose key is tokens[from..j] joined by dots, longest first (keys like `ctx.total`). */
function findPair(pairs: Pair[], tokens: PathToken[], from: number): { pair: Pair; next: number } | undefined {
  let last = from;
  while (last + 1 < tokens.length && typeof tokens[last + 1] === 'string') last += 1;
  for (let end = last; end >= from; end -= 1) {
    const key = tokens
      .slice(from, end + 1)
      .map(String)
      .join('.');
    const pair = pairs.find((p) => keyText(p.key) === key);
    if (pair) return { pair, next: end + 1 };
  }
  return undefined;
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return typeof key === 'string' || typeof key === 'number' ? String(key) : undefined;
}
