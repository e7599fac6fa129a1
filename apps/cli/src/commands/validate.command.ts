import type { Command } from 'commander';

export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('validate playbook files; exit code 1 on any problem')
    .argument('<files...>', 'playbook YAML files')
    .action(async (files: string[]) => {
      const { validateFiles } = await import('../shared/validate-files');
      const problems = validateFiles(files, (line) => process.stdout.write(`${line}\n`));
      if (problems > 0) process.exitCode = 1;
      else process.stdout.write(`${files.length} file(s) valid\n`);
    });
}
