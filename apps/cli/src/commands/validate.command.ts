import { formatProblem, parsePlaybook, undefinedTemplateNames } from '@noetl/dsl';
import type { Command } from 'commander';
import { readPlaybookFile } from '../shared/read-playbook-file';

/**
 * Checks each file; prints `file:line:column path message` per problem. A
 * playbook registration would accept is also checked for template names that
 * nothing defines: a member read of one is a problem, a bare read a warning
 * (printed, not counted). Returns the number of problems.
 */
export function validateFiles(files: string[], out: (line: string) => void): number {
  let problems = 0;
  for (const file of files) {
    const text = readPlaybookFile(file, out);
    if (text === undefined) {
      problems += 1;
      continue;
    }
    const result = parsePlaybook(text);
    const names = undefinedTemplateNames(text);
    const found = [...result.problems, ...names.errors];
    for (const problem of [...found, ...names.warnings].sort((a, b) => (a.line ?? 0) - (b.line ?? 0))) out(formatProblem(file, problem));
    problems += found.length;
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
