import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../../test/support/cli-server-process';

/** The built CLI (`dist/`, made by `npm run build`) as a user runs it: `npx noetl ...` runs this file with node. */
describe('the noetl binary', () => {
  let scratch: string;
  beforeAll(() => (scratch = mkdtempSync(join(tmpdir(), 'noetl-bin-'))));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('is the package.json bin entry, and prints the package version with --version', async () => {
    const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../../package.json'), 'utf8')) as {
      version: string;
      bin: Record<string, string>;
    };
    expect(pkg.bin).toEqual({ noetl: 'dist/apps/cli/src/main.js' });
    expect(readFileSync(resolve(__dirname, '../../..', pkg.bin.noetl!), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
    expect(await runCli(['--version'], {})).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('prints the help and exits 0 when given no command', async () => {
    const run = await runCli([], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: noetl \[options\] \[command\]\n/);
    expect(run.stdout).toContain('executions');
  });

  it("shows a subcommand's own help with `help keys create`, and names an unknown one", async () => {
    const run = await runCli(['help', 'keys', 'create'], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: noetl keys create \[options\]\n/);
    expect(run.stdout).toContain('--role <role>');
    const unknown = await runCli(['help', 'keys', 'nosuch'], {});
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no command "noetl keys nosuch"');
  });

  it.each(['help', '--version', 'workers --server http://127.0.0.1:1'])(
    'loads neither Nest, TypeORM, the engine nor the tools for `noetl %s`',
    async (command) => {
      const args = command.split(' ');
      // Lists, at exit, every module the command loaded.
      const preload = join(scratch, 'list-modules.js');
      writeFileSync(
        preload,
        `process.on('exit', () => process.stderr.write('MODULES ' + JSON.stringify(Object.keys(require.cache)) + '\\n'));`,
      );
      const run = await runCli(args, { NODE_OPTIONS: `--require ${preload}` });
      const modules = JSON.parse(/^MODULES (.*)$/m.exec(run.stderr)![1]!) as string[];
      const heavy = modules.filter((path) =>
        /node_modules\/(@nestjs|typeorm|pg|nats|ioredis|bullmq|quickjs-emscripten)\/|dist\/libs\/(runtime|platform|storage|tools)\//.test(
          path,
        ),
      );
      expect(heavy).toEqual([]);
    },
  );
});
