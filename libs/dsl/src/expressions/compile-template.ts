/**
 * Template text to a runnable root function: parse (safe parser), validate,
 * generate code (safe compiler), instantiate. Every failure on the way is a
 * TemplateError with the template text and a 1-based position.
 */
import type { NjEnvironment, NjFrame } from './nunjucks-internals';
import { generateSource } from './safe-compiler';
import { parseTemplate } from './safe-parser';
import { templateError, TemplateError } from './template-error';
import type { KnownNames } from './known-names';
import { soleExpression, validateTemplate, type TemplateProblem } from './validate-template';
import type { RenderContext } from './sandbox-runtime';

export type RenderCallback = (error: unknown, result?: unknown) => void;

export type RootRender = (
  env: NjEnvironment,
  context: RenderContext,
  frame: NjFrame,
  runtime: Record<string, unknown>,
  cb: RenderCallback,
) => void;

export interface CompiledTemplate {
  /** True when the template is one `{{ expr }}` and renders to the expression's value. */
  readonly native: boolean;
  readonly root: RootRender;
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A problem from nunjucks' lexer, parser or code generator (positions there are already 1-based). */
export function problemFromError(error: unknown): TemplateProblem {
  if (!(error instanceof Error)) return { message: String(error) };
  return {
    message: error.message.replace(/^Error: /, '').replace(/^parse\w*: /, ''),
    line: numberOrUndefined('lineno' in error ? error.lineno : undefined),
    column: numberOrUndefined('colno' in error ? error.colno : undefined),
  };
}

function fail(problem: TemplateProblem, template: string): TemplateError {
  return templateError(problem.message, template, problem.line, problem.column);
}

function instantiate(source: string): RootRender {
  const factory = new Function(source) as () => { root: RootRender };
  return factory().root;
}

/** All problems found without rendering; empty when the template compiles. */
export function checkTemplate(template: string, known: KnownNames): TemplateProblem[] {
  try {
    const ast = parseTemplate(template);
    const problems = validateTemplate(ast, known);
    if (problems.length > 0) return problems;
    instantiate(generateSource(ast, soleExpression(ast)));
    return [];
  } catch (error) {
    return [problemFromError(error)];
  }
}

export function compileTemplate(template: string, known: KnownNames): CompiledTemplate {
  let ast;
  try {
    ast = parseTemplate(template);
  } catch (error) {
    throw fail(problemFromError(error), template);
  }
  const [problem] = validateTemplate(ast, known);
  if (problem) throw fail(problem, template);
  const expression = soleExpression(ast);
  try {
    return { native: expression !== undefined, root: instantiate(generateSource(ast, expression)) };
  } catch (error) {
    throw fail(problemFromError(error), template);
  }
}
