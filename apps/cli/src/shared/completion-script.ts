import type { Command } from 'commander';
import { commandWords } from './command-tree';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/**
 * A completion script for `shell` over the program's command tree: the words
 * after the command typed so far (its subcommands and options). Each script
 * finds that command by walking the typed words that name a known deeper
 * command, so options and arguments in between do not confuse it.
 */
export function completionScript(program: Command, shell: Shell): string {
  const name = program.name();
  const fn = `_${name.replace(/\W/g, '_')}`;
  const tree = [...commandWords(program)];
  switch (shell) {
    case 'bash':
      return [
        `# bash completion for ${name}: eval "$(${name} completion bash)", e.g. in ~/.bashrc`,
        `declare -gA ${fn}_words=(`,
        ...tree.map(([path, words]) => `  [${quote(path || '.')}]=${quote(words.join(' '))}`),
        ')',
        `${fn}() {`,
        '  local cmd=. next w i',
        '  for ((i = 1; i < COMP_CWORD; i++)); do',
        '    w=${COMP_WORDS[i]}',
        '    [[ $w == -* ]] && continue',
        '    if [[ $cmd == . ]]; then next=$w; else next="$cmd $w"; fi',
        `    [[ -n \${${fn}_words[$next]+x} ]] && cmd=$next`,
        '  done',
        `  COMPREPLY=($(compgen -W "\${${fn}_words[$cmd]}" -- "\${COMP_WORDS[COMP_CWORD]}"))`,
        '}',
        `complete -o default -F ${fn} ${name}`,
        '',
      ].join('\n');
    case 'zsh':
      return [
        `#compdef ${name}`,
        `# zsh completion for ${name}: eval "$(${name} completion zsh)" after compinit, e.g. in ~/.zshrc`,
        `${fn}() {`,
        '  local -A known',
        `  known=(${tree.map(([path, words]) => `${quote(path || '.')} ${quote(words.join(' '))}`).join(' ')})`,
        '  local cmd=. next w',
        '  for w in ${words[2,CURRENT-1]}; do',
        '    [[ $w == -* ]] && continue',
        '    if [[ $cmd == . ]]; then next=$w; else next="$cmd $w"; fi',
        '    (( ${+known[$next]} )) && cmd=$next',
        '  done',
        '  compadd -- ${=known[$cmd]}',
        '  _files',
        '}',
        `compdef ${fn} ${name}`,
        '',
      ].join('\n');
    case 'fish':
      return [
        `# fish completion for ${name}: ${name} completion fish | source, e.g. in ~/.config/fish/config.fish`,
        `function ${fn}_words`,
        '  switch $argv[1]',
        ...tree.flatMap(([path, words]) => [`    case ${quote(path || '.')}`, `      printf '%s\\n' ${words.map(quote).join(' ')}`]),
        "    case '*'",
        '      return 1',
        '  end',
        'end',
        `function ${fn}_complete`,
        '  set -l cmd .',
        '  for w in (commandline -opc)[2..-1]',
        "    string match -q -- '-*' $w; and continue",
        '    set -l next $w',
        '    test $cmd != .; and set next "$cmd $w"',
        `    ${fn}_words $next >/dev/null; and set cmd $next`,
        '  end',
        `  ${fn}_words $cmd`,
        'end',
        `complete -c ${name} -a '(${fn}_complete)'`,
        '',
      ].join('\n');
  }
}

/** A single-quoted shell word, the same in bash, zsh and fish: command names and flags hold no quote. */
function quote(text: string): string {
  return `'${text}'`;
}
