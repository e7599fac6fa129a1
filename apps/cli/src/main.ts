#!/usr/bin/env node
import { Command } from 'commander';
import { registerCancelCommand } from './commands/cancel.command';
import { registerCatalogCommand } from './commands/catalog.command';
import { registerCompletionCommand } from './commands/completion.command';
import { registerCredentialsCommand } from './commands/credentials.command';
import { registerEventsCommand } from './commands/events.command';
import { registerExecuteCommand } from './commands/execute.command';
import { registerExecutionsCommand } from './commands/executions.command';
import { registerHelpCommand } from './commands/help.command';
import { registerKeysCommand } from './commands/keys.command';
import { registerLogsCommand } from './commands/logs.command';
import { registerMigrateCommand } from './commands/migrate.command';
import { registerProjectorCommand } from './commands/projector.command';
import { registerRegisterCommand } from './commands/register.command';
import { registerReplayCommand } from './commands/replay.command';
import { registerRerunCommand } from './commands/rerun.command';
import { registerVerifyCommand } from './commands/verify.command';
import { registerRunCommand } from './commands/run.command';
import { registerScheduleCommand } from './commands/schedule.command';
import { registerServerCommand } from './commands/server.command';
import { registerSignalCommand } from './commands/signal.command';
import { registerStatusCommand } from './commands/status.command';
import { registerValidateCommand } from './commands/validate.command';
import { registerWorkersCommand } from './commands/workers.command';
import { endQuietlyOnClosedPipe } from './shared/closed-pipe';
import { packageVersion } from './shared/package-version';

/**
 * `noetl`: the command line of the runtime (DESIGN.md s6; `npx noetl` from a
 * clone). Only commander and light modules load here: a command loads the
 * engine, Nest, TypeORM or an HTTP client inside its action, so that `help`
 * and the client commands start in a fraction of a second.
 */
export function buildProgram(): Command {
  const program = new Command('noetl').description('NoETL playbook runtime').version(packageVersion()).showHelpAfterError();
  registerRunCommand(program);
  registerServerCommand(program);
  registerRegisterCommand(program);
  registerExecuteCommand(program);
  registerStatusCommand(program);
  registerExecutionsCommand(program);
  registerEventsCommand(program);
  registerLogsCommand(program);
  registerCancelCommand(program);
  registerSignalCommand(program);
  registerRerunCommand(program);
  registerScheduleCommand(program);
  registerReplayCommand(program);
  registerVerifyCommand(program);
  registerCatalogCommand(program);
  registerCredentialsCommand(program);
  registerWorkersCommand(program);
  registerValidateCommand(program);
  registerMigrateCommand(program);
  registerProjectorCommand(program);
  registerKeysCommand(program);
  registerCompletionCommand(program);
  registerHelpCommand(program);
  return program;
}

if (require.main === module) {
  endQuietlyOnClosedPipe();
  const program = buildProgram();
  // No command: the help, as a question rather than a mistake (exit 0).
  if (process.argv.length <= 2) program.help();
  program.parseAsync(process.argv).catch((error: unknown) => {
    process.stderr.write(`noetl: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
