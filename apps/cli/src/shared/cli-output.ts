/**
 * Where a command writes. Commands take one instead of touching `process`
 * so that specs can run them in-process and read what they printed.
 */
export interface CliOutput {
  /** One line (or block) on stdout; a newline is added. */
  out(text: string): void;
  /** One line on stderr; a newline is added. */
  err(text: string): void;
  /** Set when stdout is a terminal: live progress may redraw it. */
  tty?: NodeJS.WriteStream;
}

export function processOutput(): CliOutput {
  return {
    out: (text) => void process.stdout.write(`${text}\n`),
    err: (text) => void process.stderr.write(`${text}\n`),
    ...(process.stdout.isTTY ? { tty: process.stdout } : {}),
  };
}
