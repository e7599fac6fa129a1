import type { Command } from 'commander';
import { commandAt } from '../shared/command-tree';

/** `noetl help keys create`: commander's own help command stops at the first level, showing `keys` there. */
export function registerHelpCommand(program: Command): void {
  program
    .helpCommand(false)
    .command('help')
    .description('show the help of a command at any depth: noetl help keys create')
    .argument('[command...]', 'the command')
    .action((path: string[]) => commandAt(program, path).help());
}
