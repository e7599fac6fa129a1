import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/*
 * The boundaries the code keeps (docs/architecture.md), checked on every
 * production file: apps and libs, without specs and test helpers.
 */

const ROOT = resolve(__dirname, '../..');

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join('/'));
}

const isProduction = (file: string) => !/\.(spec|int-spec|e2e-spec)\.ts$/.test(file) && !file.includes('/testing/');
const production = [...filesUnder('apps'), ...filesUnder('libs')].filter(isProduction);
const source = new Map(production.map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]));

/** The relative module specifiers a file imports (or re-exports). */
function relativeImports(text: string): string[] {
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => match[1]!);
}

const appOf = (file: string) => /^apps\/([^/]+)\//.exec(file)?.[1];

describe('architecture boundaries', () => {
  it('reads the production files', () => {
    expect(production.length).toBeGreaterThan(300);
    expect(production).toContain('libs/runtime/src/engine.ts');
  });

  it('has no app importing another app: what they share lives in a lib', () => {
    const crossings = production.flatMap((file) => {
      const app = appOf(file);
      if (!app) return [];
      return relativeImports(source.get(file)!)
        .map((spec) =>
          relative(ROOT, resolve(ROOT, dirname(file), spec))
            .split(sep)
            .join('/'),
        )
        .filter((target) => appOf(target) !== undefined && appOf(target) !== app)
        .map((target) => `${file} -> ${target}`);
    });
    expect(crossings).toEqual([]);
  });

  it('keeps every production file under 450 lines: a longer one holds more than one concern', () => {
    const long = production.filter((file) => (source.get(file)!.match(/\n/g)?.length ?? 0) > 450);
    expect(long).toEqual([]);
  });

  it("has no 'as unknown as': a value of the wrong type is read by a guard, not cast", () => {
    expect(production.filter((file) => source.get(file)!.includes('as unknown as'))).toEqual([]);
  });

  it('writes SQL on the noetl schema only in libs/storage', () => {
    const outside = production.filter(
      (file) => !file.startsWith('libs/storage/') && /\b(FROM|JOIN|INTO|UPDATE|TABLE)\s+noetl\.[a-z_]+/i.test(source.get(file)!),
    );
    expect(outside).toEqual([]);
  });
});
