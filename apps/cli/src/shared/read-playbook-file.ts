import { readFileSync } from 'node:fs';

/** The file's text; undefined after printing `file: cannot read: CODE`. */
export function readPlaybookFile(file: string, print: (line: string) => void): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    print(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    return undefined;
  }
}
