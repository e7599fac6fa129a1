import type { Problem } from '../model';
import type { Anchor, Position, YamlSource } from './source-positions';

/** The report callback the policy compilers take: a problem path and a message. */
export type ReportFn = (path: string, message: string) => void;

/** Collects every registration problem with its YAML position. */
export class ProblemCollector {
  private readonly items: Problem[] = [];

  constructor(private readonly source: YamlSource) {}

  /** A problem about a value (or, when the path does not exist, its nearest ancestor). */
  readonly report: ReportFn = (path, message) => this.add(path, message, 'value');

  add(path: string, message: string, anchor: Anchor = 'value'): void {
    this.addAt(path, message, this.source.locate(path, anchor));
  }

  addAt(path: string, message: string, position: Position): void {
    this.items.push({ path, line: position.line, column: position.column, message });
  }

  /** The line a path points at (for "first at line N" messages). */
  lineOf(path: string): number {
    return this.source.locate(path, 'key').line;
  }

  get count(): number {
    return this.items.length;
  }

  /** Every problem once, in source order. */
  list(): Problem[] {
    const seen = new Set<string>();
    const unique = this.items.filter((p) => {
      const id = `${p.path}\u0000${p.message}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    return unique
      .map((p, order) => ({ p, order }))
      .sort((a, b) => (a.p.line ?? 0) - (b.p.line ?? 0) || (a.p.column ?? 0) - (b.p.column ?? 0) || a.order - b.order)
      .map(({ p }) => p);
  }
}
