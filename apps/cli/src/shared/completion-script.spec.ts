import { execFileSync } from 'node:child_process';
import { buildProgram } from '../main';
import { completionScript } from './completion-script';

/** What bash offers after `words` (the last one being typed), with the script loaded as a user loads it. */
function bashCompletes(words: string[]): string[] {
  const script = `eval "$1"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _noetl; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync('bash', ['-c', script, 'bash', completionScript(buildProgram(), 'bash')], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

describe('noetl completion', () => {
  it('completes commands, subcommands at any depth, and their options in bash', () => {
    expect(bashCompletes(['noetl', 'ex'])).toEqual(['execute', 'executions']);
    expect(bashCompletes(['noetl', 'keys', ''])).toEqual(expect.arrayContaining(['create', 'list', 'revoke']));
    expect(bashCompletes(['noetl', 'keys', 'create', '--r'])).toEqual(['--role']);
    // Options and their values before a subcommand do not hide it.
    expect(bashCompletes(['noetl', 'schedule', '--help', 'create', '--ov'])).toEqual(['--overlap']);
    expect(bashCompletes(['noetl', 'workers', '--server', 'http://x', '--o'])).toEqual(['--output']);
  });

  it('lists every command of the tree in the zsh and fish scripts', () => {
    const program = buildProgram();
    for (const shell of ['zsh', 'fish'] as const) {
      const script = completionScript(program, shell);
      for (const path of ['keys create', 'schedule trigger', 'executions list', 'completion']) expect(script).toContain(`'${path}'`);
    }
    expect(completionScript(program, 'zsh')).toMatch(/^#compdef noetl\n/);
    expect(completionScript(program, 'fish')).toContain("complete -c noetl -a '(_noetl_complete)'");
  });
});
