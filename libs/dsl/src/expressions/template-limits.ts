/**
 * How much one render may do (issue 15 defect 3). A template runs inside the
 * worker's process: without bounds, `{% for %}` over doubling lists reaches
 * V8's array limit, which kills the process rather than throwing. Every limit
 * is per render of one template string; going over one fails that render
 * with a template error (kind `template`, code `template_budget`).
 */
export interface TemplateLimits {
  /** Iterations of `{% for %}` loops in one render, nested loops together. */
  maxLoopIterations: number;
  /** Items one `range()` may produce. */
  maxRangeSize: number;
  /** Items of a list the template builds (`+`, `*`, filters). Lists read from the scope are not limited. */
  maxListLength: number;
  /** Characters of a string the template builds (`~`, `+`, `*`, filters, methods). */
  maxStringLength: number;
  /** Characters a template with text around or between its expressions renders to. */
  maxOutputLength: number;
  /**
   * Work units of one render: one per loop iteration, per list item and
   * string character a template builds or walks, per value compared, and per
   * item and character of the value a single-expression template hands out.
   * Bounds the render's CPU time where the other limits, each about one
   * value, do not (a loop that copies a large list on every iteration, a
   * list repeating one large value a million times).
   */
  maxWork: number;
}

/**
 * Defaults: far above what a playbook template needs (SQL text for a page of
 * rows, a list of a few thousand ids, a JSON body of a few MB), far below
 * what hurts the process. 32 Mi characters is 32-64 MB of string; a million
 * list items is what a template can grow without strain (V8's own limit,
 * where it aborts the process, is about 134 million); 100 million work units
 * is about a second of CPU at worst. `range()` keeps its earlier cap.
 */
export const DEFAULT_TEMPLATE_LIMITS: Readonly<TemplateLimits> = Object.freeze({
  maxLoopIterations: 1_000_000,
  maxRangeSize: 100_000,
  maxListLength: 1_000_000,
  maxStringLength: 32 * 1024 * 1024,
  maxOutputLength: 32 * 1024 * 1024,
  maxWork: 100_000_000,
});
