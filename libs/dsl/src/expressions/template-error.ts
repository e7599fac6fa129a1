/**
 * A template that does not parse, refers to an unknown filter, or fails while
 * rendering. `expression` is the whole template text; line and column are
 * 1-based positions inside it, when known.
 */
export class TemplateError extends Error {
  readonly code = 'template_error';

  constructor(
    message: string,
    readonly expression: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

const MAX_QUOTED = 200;

/** `template error in "{{ foo( }}": unexpected token: }} (line 1, column 9)` */
export function templateError(reason: string, expression: string, line?: number, column?: number): TemplateError {
  const quoted = expression.length > MAX_QUOTED ? `${expression.slice(0, MAX_QUOTED)}...` : expression;
  const where = line === undefined ? '' : column === undefined ? ` (line ${line})` : ` (line ${line}, column ${column})`;
  const oneLine = quoted.replace(/\r?\n/g, '\\n');
  return new TemplateError(`template error in "${oneLine}": ${reason}${where}`, expression, line, column);
}
