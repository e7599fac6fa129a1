import { Argument, type Command } from 'commander';
import { processOutput } from '../shared/cli-output';
import { completionScript, type Shell, SHELLS } from '../shared/completion-script';

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script: eval "$(noetl completion bash)" (or zsh); noetl completion fish | source')
    .addArgument(new Argument('<shell>', SHELLS.join(', ')).choices(SHELLS))
    .action((shell: Shell) => processOutput().out(completionScript(program, shell)));
}
