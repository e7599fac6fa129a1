import type { CliOutput } from '../cli-output';

/** A CliOutput that keeps what a command printed, for specs. Not a terminal: progress comes as lines. */
export function captureOutput(): CliOutput & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (text) => void stdout.push(text), err: (text) => void stderr.push(text) };
}
