/**
 * What went wrong in a template: it does not parse or refers to an unknown
 * name (`template_error`, also any other failure while rendering), it used an
 * undefined value in a way that needs a value (`template_undefined`), or it
 * went over a limit of template-limits.ts (`template_budget`).
 */
export type TemplateErrorCode = 'template_error' | 'template_undefined' | 'template_budget';

/**
 * A template that does not parse, refers to an unknown filter, or fails while
 * rendering. `expression` is the whole template text; line and column are
 * 1-based positions inside it, when known.
 */
export class TemplateError extends Error {
  constructor(
    message: string,
    readonly expression: string,
    readonly line?: number,
    readonly column?: number,
    readonly code: TemplateErrorCode = 'template_error',
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** Thrown inside a render: an undefined value was used where a value is needed. */
export class UndefinedValue extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndefinedValue';
  }
}

const MAX_QUOTED = 200;

/** `template error in "{{ foo( }}": unexpected token: }} (line 1, column 9)` */
export function templateError(
  reason: string,
  expression: string,
  line?: number,
  column?: number,
  code: TemplateErrorCode = 'template_error',
): TemplateError {
  const quoted = expression.length > MAX_QUOTED ? `${expression.slice(0, MAX_QUOTED)}...` : expression;
  const where = line === undefined ? '' : column === undefined ? ` (line ${line})` : ` (line ${line}, column ${column})`;
  const oneLine = quoted.replace(/\r?\n/g, '\\n');
  return new TemplateError(`template error in "${oneLine}": ${reason}${where}`, expression, line, column, code);
}
