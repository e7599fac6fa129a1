import { readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import ignore from '@balena/dockerignore';
import { loadConfig } from '@noetl/config';
import { validate } from 'dockerfile-utils';
import { readRepoFile, REPO_ROOT } from './support/deploy-files';
import { readDockerfile, type Stage } from './support/dockerfile';

/**
 * What can be checked of the image without a Docker engine (there is none on
 * these machines): the Dockerfile's syntax (dockerfile-utils, the Docker
 * language server's linter), its stages, user, health check and entrypoint,
 * and that the build context (.dockerignore, with Docker's own matching
 * rules) holds what the COPY instructions need and nothing private.
 */
const dockerfile = readDockerfile();
const dockerignore = ignore().add(readRepoFile('.dockerignore'));

const runs = (stage: Stage) => stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.text.replace(/\\\n/g, ' '));
const stage = (name: string) => dockerfile.stages.find((s) => s.name === name);

function filesUnder(path: string): string[] {
  const absolute = join(REPO_ROOT, path);
  if (!statSync(absolute).isDirectory()) return [path];
  return readdirSync(absolute).flatMap((name) => (name === 'node_modules' ? [] : filesUnder(posix.join(path, name))));
}

describe('Dockerfile', () => {
  it('has no problem the Docker linter reports', () => {
    const problems = validate(dockerfile.text).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
    expect(problems).toEqual([]);
    // The linter is not a no-op: a misspelt flag and instruction are reported.
    const broken = dockerfile.text.replace('HEALTHCHECK --interval', 'HEALTHCHECK --intervl').replace(/^USER /m, 'USR ');
    expect(validate(broken).map((d) => d.message)).toEqual(expect.arrayContaining(['Unknown flag: intervl', 'Unknown instruction: USR']));
  });

  it('builds every stage on Node 20 slim', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    for (const s of dockerfile.stages)
      expect({ stage: s.name, image: s.image }).toEqual({
        stage: s.name,
        image: expect.stringMatching(/^node:20(\.[\d.]+)?-[a-z]+-slim$/),
      });
  });

  it('compiles in a build stage, and the runtime stage takes dist/ from it and only production dependencies', () => {
    const build = stage('build');
    expect(runs(build!).join('\n')).toMatch(/npm run build/);
    const copies = dockerfile.runtime.instructions.filter((i) => i.keyword === 'COPY');
    const fromStage = (source: string) => copies.find((c) => c.args.includes(source))?.text.match(/--from=(\S+)/)?.[1];
    expect(fromStage('/app/dist/apps')).toBe('build');
    const modulesStage = stage(fromStage('/app/node_modules') ?? '');
    expect(modulesStage).toBeDefined();
    const install = runs(modulesStage!).find((r) => /npm (install|ci)\b/.test(r));
    expect(install).toMatch(/--omit=dev/);
    // The runtime stage installs nothing from npm itself.
    expect(runs(dockerfile.runtime).filter((r) => /\bnpm\b/.test(r))).toEqual([]);
  });

  it('has python3 for `kind: python` steps and tini as PID 1 in the runtime stage', () => {
    const apt = runs(dockerfile.runtime).find((r) => r.includes('apt-get install'));
    expect(apt).toMatch(/\bpython3\b/);
    expect(apt).toMatch(/\btini\b/);
  });

  it('runs as a numeric non-root user', () => {
    expect(dockerfile.runtimeUser().uid).toBeGreaterThan(0);
  });

  it('checks health against /health/live on PORT and exposes the default port', () => {
    const command = dockerfile.execForm(dockerfile.runtime, 'HEALTHCHECK');
    expect(command[0]).toBe('node');
    expect(command.join(' ')).toContain('/health/live');
    expect(command.join(' ')).toContain('process.env.PORT');
    const expose = dockerfile.runtime.instructions.find((i) => i.keyword === 'EXPOSE');
    expect(Number(expose?.args[0])).toBe(loadConfig({}).http.port);
  });

  it('enters through tini into the entrypoint script it copies', () => {
    const entrypoint = dockerfile.execForm(dockerfile.runtime, 'ENTRYPOINT');
    expect(entrypoint.slice(0, 2)).toEqual(['/usr/bin/tini', '--']);
    const workdir = dockerfile.runtime.instructions.filter((i) => i.keyword === 'WORKDIR').pop()?.args[0];
    const copy = dockerfile.runtime.instructions.find((i) => i.keyword === 'COPY' && i.args.includes('docker/entrypoint.sh'));
    expect(copy?.text).toMatch(/--chmod=0?755/);
    expect(posix.resolve(workdir!, copy!.args[copy!.args.length - 1]!)).toBe(entrypoint[2]);
    expect(entrypoint).toHaveLength(3);
  });

  describe('build context (.dockerignore)', () => {
    it('holds every file the COPY instructions name from the context, apart from tests', () => {
      const sources = dockerfile.stages
        .flatMap((s) => s.instructions)
        .filter((i) => i.keyword === 'COPY' && !/--from=/.test(i.text))
        .flatMap((i) => i.args.filter((a) => !a.startsWith('--')).slice(0, -1));
      expect(sources).toEqual(
        expect.arrayContaining(['package.json', 'package-lock.json', 'apps', 'libs', 'migrations', 'docker/entrypoint.sh']),
      );
      const needed = sources
        .flatMap(filesUnder)
        .filter((file) => !/\.(spec|int-spec|e2e-spec)\.ts$/.test(file) && !file.includes('/testing/'));
      expect(needed.length).toBeGreaterThan(100);
      expect(needed.filter((file) => dockerignore.ignores(file))).toEqual([]);
    });

    it('leaves out dependencies, builds, git, env files, tests and the deploy files', () => {
      const excluded = [
        '.env',
        '.env.example',
        '.git/HEAD',
        'node_modules/pg/package.json',
        'dist/apps/api/src/main.js',
        'test/e2e/retry.e2e-spec.ts',
        'libs/roles/src/api/api.e2e-spec.ts',
        'libs/roles/src/api/testing/api-test-app.ts',
        'k8s/secret.yaml',
        'docker-compose.yml',
      ];
      expect(excluded.filter((file) => !dockerignore.ignores(file))).toEqual([]);
    });
  });
});
