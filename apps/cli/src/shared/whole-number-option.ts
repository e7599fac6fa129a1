import { InvalidArgumentError } from 'commander';

/** An option's value that must be a whole number >= 1 (a limit, a count). */
export function wholeNumberOption(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a whole number >= 1, got "${text}"`);
  return n;
}
