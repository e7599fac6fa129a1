import type { Playbook, Problem } from '../model';
import { checkTemplates } from './check-templates';
import { documentProblems, textProblems } from './document-limits';
import { normaliseDocument } from './normalise-document';
import type { ParseContext } from './parse-context';
import { ProblemCollector } from './problem-collector';
import { YamlSource } from './source-positions';

/**
 * The shape of the Playbook model `parsePlaybook` makes, as a number: the
 * catalog stores each registered version's model at this format and uses
 * it instead of parsing the YAML again only while the format is the same.
 * Bump it with any change to what parsing makes of a document; the spec
 * `model-format.spec.ts` fails until it is bumped and re-recorded.
 */
export const PLAYBOOK_MODEL_FORMAT = 1;

export interface ParseResult {
  /** Present only when `problems` is empty. */
  playbook?: Playbook;
  problems: Problem[];
}

/**
 * YAML text -> the one Playbook model (DSL.md), or every problem found, each
 * with its path, line and column. Pure: no I/O, no clock.
 */
export function parsePlaybook(yamlText: string): ParseResult {
  const tooLong = textProblems(yamlText);
  if (tooLong.length > 0) return { problems: tooLong };
  const parsed = YamlSource.parse(yamlText);
  if (!parsed.source) return { problems: parsed.problems };
  const unsafe = documentProblems(parsed.source);
  if (unsafe.length > 0) return { problems: unsafe };
  const problems = new ProblemCollector(parsed.source);
  const ctx: ParseContext = { problems, stepRefs: [], workbookRefs: [] };
  const playbook = normaliseDocument(parsed.value, ctx);
  checkTemplates(parsed.source, problems);
  const list = problems.list();
  return list.length === 0 && playbook ? { playbook, problems: [] } : { problems: list };
}
