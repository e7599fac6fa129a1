import { formatProblem, parsePlaybook } from '@noetl/dsl';
import { readPlaybookFile } from './read-playbook-file';

/** Checks each file; prints `file:line:column path message` per problem. Returns the number of problems. */
export function validateFiles(files: string[], out: (line: string) => void): number {
  let problems = 0;
  for (const file of files) {
    const text = readPlaybookFile(file, out);
    if (text === undefined) {
      problems += 1;
      continue;
    }
    const result = parsePlaybook(text);
    for (const problem of result.problems) out(formatProblem(file, problem));
    problems += result.problems.length;
  }
  return problems;
}
