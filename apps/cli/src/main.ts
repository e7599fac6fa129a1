#!/usr/bin/env node
import { Command } from 'commander';
import { registerCancelCommand } from './commands/cancel.command';
import { registerEventsCommand } from './commands/events.command';
import { registerExecuteCommand } from './commands/execute.command';
import { registerKeysCommand } from './commands/keys.command';
import { registerMigrateCommand } from './commands/migrate.command';
import { registerProjectorCommand } from './commands/projector.command';
import { registerRegisterCommand } from './commands/register.command';
import { registerReplayCommand } from './commands/replay.command';
import { registerRunCommand } from './commands/run.command';
import { registerScheduleCommand } from './commands/schedule.command';
import { registerServerCommand } from './commands/server.command';
import { registerSignalCommand } from './commands/signal.command';
import { registerStatusCommand } from './commands/status.command';
import { registerValidateCommand } from './commands/validate.command';
import { registerWorkersCommand } from './commands/workers.command';

/** `noetl`: the command line of the runtime (DESIGN.md s6, from the repo root: `npm run noetl -- <command>`). */
export function buildProgram(): Command {
  const program = new Command('noetl').description('NoETL playbook runtime').showHelpAfterError();
  registerRunCommand(program);
  registerServerCommand(program);
  registerRegisterCommand(program);
  registerExecuteCommand(program);
  registerStatusCommand(program);
  registerEventsCommand(program);
  registerCancelCommand(program);
  registerSignalCommand(program);
  registerScheduleCommand(program);
  registerReplayCommand(program);
  registerWorkersCommand(program);
  registerValidateCommand(program);
  registerMigrateCommand(program);
  registerProjectorCommand(program);
  registerKeysCommand(program);
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
