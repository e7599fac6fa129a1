// Test helpers for the parse specs (pure; no test-framework globals).
import type { Playbook, Problem, Step } from '../../model';
import { parsePlaybook } from '../parse-playbook';

/** The header every test document starts with; the first step is on line 6. */
export const HEADER = ['apiVersion: noetl.io/v2', 'kind: Playbook', 'metadata:', '  name: t', 'workflow:'].join('\n');
export const FIRST_STEP_LINE = 6;

/** A document whose `workflow:` is `steps` (YAML list text, indented by two spaces), plus top-level `extra`. */
export function playbookText(steps: string, extra = ''): string {
  return `${HEADER}\n${dedent(steps)}${extra ? `\n${dedent(extra)}` : ''}\n`;
}

/** Parses text that must be valid; a failure prints the problems. */
export function parseOk(text: string): Playbook {
  const result = parsePlaybook(text);
  if (!result.playbook || result.problems.length > 0) {
    throw new Error(
      `expected no problems, got:\n${result.problems.map((p) => `  ${p.line}:${p.column} ${p.path} ${p.message}`).join('\n')}`,
    );
  }
  return result.playbook;
}

/** The steps of a valid document made of `steps`. */
export function stepsOf(steps: string, extra = ''): Step[] {
  return parseOk(playbookText(steps, extra)).steps;
}

/** The problems of a document that must be rejected. */
export function problemsOf(text: string): Problem[] {
  const result = parsePlaybook(text);
  if (result.playbook || result.problems.length === 0) throw new Error('expected the document to be rejected');
  return result.problems;
}

/** Strips the common leading indentation of a template literal, and its first and last blank lines. */
export function dedent(text: string): string {
  const lines = text
    .replace(/^\s*\n/, '')
    .replace(/\n\s*$/, '')
    .split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)?.[0].length ?? 0));
  return lines.map((l) => l.slice(indent)).join('\n');
}
