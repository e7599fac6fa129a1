import { formatProblem, parsePlaybook } from '@noetl/dsl';
import type { Command } from 'commander';
import { readPlaybookFile } from '../shared/read-playbook-file';

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

export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('validate playbook files; exit code 1 on any problem')
    .argument('<files...>', 'playbook YAML files')
    .action((files: string[]) => {
      const problems = validateFiles(files, (line) => process.stdout.write(`${line}\n`));
      if (problems > 0) process.exitCode = 1;
      else process.stdout.write(`${files.length} file(s) valid\n`);
    });
}
