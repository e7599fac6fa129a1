import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The version in the repository's package.json: the nearest one above this
 * file, which is the same one whether it runs from the sources or from dist/.
 */
export function packageVersion(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
