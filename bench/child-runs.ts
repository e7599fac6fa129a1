import { fork } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '../tools/fixtures/src/main';

/**
 * The harness of a memory bench that runs each size in a child process of
 * its own (so each peak RSS is that size's alone): `bench:loop-memory`,
 * `bench:stream-memory`. The file forks itself with `childFlag` and the
 * size's arguments; the child runs `child` and sends its result back.
 */
export interface ChildRuns<T> {
  /** Names the bench in errors and its result files (`bench/results/<name>.{json,md}`). */
  name: string;
  /** The file to fork (the bench's own `__filename`). */
  file: string;
  childFlag: string;
  /** Extra Node flags of the child (`--expose-gc`). */
  execArgv?: string[];
  child: (args: string[]) => Promise<T>;
  main: () => Promise<void>;
}

/** Runs one size in a child process; rejects when it exits without a result. */
export function inChild<T>(runs: Pick<ChildRuns<T>, 'file' | 'childFlag' | 'execArgv'>, args: string[], what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(runs.file, [runs.childFlag, ...args], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [...process.execArgv, ...(runs.execArgv ?? [])],
    });
    let result: T | undefined;
    child.on('message', (message) => (result = message as T));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 && result ? resolve(result) : reject(new Error(`${what} exited ${code} without a result`))));
  });
}

/** Writes the bench's JSON and Markdown results and prints the table. */
export async function writeResults(name: string, json: unknown, table: string): Promise<void> {
  const dir = join(repoRoot(), 'bench', 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${name}.json`), `${JSON.stringify(json, null, 2)}\n`);
  await writeFile(join(dir, `${name}.md`), `${table}\n`);
  process.stdout.write(`${table}\n`);
}

/** The bench's entry: a child runs its size and sends the result, the parent runs `main`; either exits 1 on an error. */
export function runBench<T>(runs: ChildRuns<T>): void {
  const fail = (error: unknown): void => {
    process.stderr.write(`bench:${runs.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  };
  if (process.argv[2] === runs.childFlag) {
    runs.child(process.argv.slice(3)).then((result) => process.send!(result, undefined, {}, () => process.exit(0)), fail);
  } else {
    runs.main().then(() => process.exit(0), fail);
  }
}
