#!/usr/bin/env node
import { Command } from 'commander';
import { registerMigrateCommand } from './commands/migrate.command';
import { registerValidateCommand } from './commands/validate.command';

/** `noetl`: the command line of the runtime (DESIGN.md s6, from the repo root: `npm run noetl -- <command>`). */
export function buildProgram(): Command {
  const program = new Command('noetl').description('NoETL playbook runtime').showHelpAfterError();
  registerValidateCommand(program);
  registerMigrateCommand(program);
  return program;
}

if (require.main === module) {
  buildProgram()
    .parseAsync(process.argv)
    .catch((error: unknown) => {
      process.stderr.write(`noetl: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
