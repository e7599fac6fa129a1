import { type Command, InvalidArgumentError } from 'commander';

/** The subcommand `path` names under `program` (`['keys', 'create']`). */
export function commandAt(program: Command, path: string[]): Command {
  let command = program;
  for (const [i, name] of path.entries()) {
    const sub = command.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (!sub)
      throw new InvalidArgumentError(
        `no command "${[program.name(), ...path.slice(0, i + 1)].join(' ')}"; \`${program.name()} help\` lists them`,
      );
    command = sub;
  }
  return command;
}

/** Each command under `program` by its path (`''`, `'keys'`, `'keys create'`), with the words that may follow it: subcommands, then options. */
export function commandWords(program: Command): Map<string, string[]> {
  const words = new Map<string, string[]>();
  const visit = (command: Command, path: string): void => {
    const options = command.options.flatMap((option) => [option.long, option.short]).filter((flag): flag is string => flag !== undefined);
    words.set(path, [...command.commands.map((sub) => sub.name()), ...options, '--help']);
    for (const sub of command.commands) visit(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  visit(program, '');
  return words;
}
