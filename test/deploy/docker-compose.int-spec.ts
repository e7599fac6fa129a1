import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { COMPOSE_FILE, COMPOSE_S3_FILE, ENV_EXAMPLE_FILE, readRepoFile, REPO_ROOT } from './support/deploy-files';

/**
 * `docker-compose config -q`: Compose itself (Debian's docker-compose, which
 * .ci/run installs) parses, interpolates and validates the file against its
 * schema, and checks what a schema cannot: that env files exist and that
 * depends_on names services. It needs no Docker engine.
 */
function composeConfig(directory: string, extra: string[] = []): { status: number | null; stderr: string; stdout: string } {
  const result = spawnSync(
    'docker-compose',
    ['--project-directory', directory, '-f', join(directory, COMPOSE_FILE), ...extra, 'config', ...(extra.length ? [] : ['-q'])],
    {
      encoding: 'utf8',
    },
  );
  if (result.error) {
    throw new Error(`docker-compose could not be run (${result.error.message}); install it: apt-get install docker-compose (.ci/run does)`);
  }
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

describe('docker-compose config', () => {
  it('accepts docker-compose.yml with .env.example', () => {
    expect(composeConfig(REPO_ROOT)).toMatchObject({ status: 0, stderr: '' });
  });

  it('accepts the s3 profile with docker-compose.s3.yml, which adds MinIO and points the roles at it', () => {
    const merged = composeConfig(REPO_ROOT, ['-f', join(REPO_ROOT, COMPOSE_S3_FILE), '--profile', 's3']);
    expect({ status: merged.status, stderr: merged.stderr }).toEqual({ status: 0, stderr: '' });
    const config = parse(merged.stdout) as {
      services: Record<string, { environment?: Record<string, string>; depends_on?: Record<string, unknown> }>;
    };
    expect(Object.keys(config.services)).toEqual(expect.arrayContaining(['minio', 'minio-setup']));
    expect(config.services.worker?.environment).toMatchObject({
      NOETL_ROLES: 'worker',
      NOETL_PAYLOAD_STORE: 's3',
      NOETL_S3_ENDPOINT: 'http://minio:9000',
    });
    expect(Object.keys(config.services.worker?.depends_on ?? {})).toEqual(expect.arrayContaining(['api', 'migrate', 'minio-setup']));
  });

  it('rejects a service that depends on one that does not exist, and a missing env file (so a pass means something)', () => {
    const directory = mkdtempSync(join(tmpdir(), 'noetl-compose-'));
    try {
      writeFileSync(
        join(directory, COMPOSE_FILE),
        readRepoFile(COMPOSE_FILE).replace(
          '      api:\n        condition: service_healthy',
          '      apii:\n        condition: service_healthy',
        ),
      );
      copyFileSync(join(REPO_ROOT, ENV_EXAMPLE_FILE), join(directory, ENV_EXAMPLE_FILE));
      const dangling = composeConfig(directory);
      expect(dangling.status).not.toBe(0);
      expect(dangling.stderr).toMatch(/apii/);

      writeFileSync(join(directory, COMPOSE_FILE), readRepoFile(COMPOSE_FILE));
      rmSync(join(directory, ENV_EXAMPLE_FILE));
      const missing = composeConfig(directory);
      expect(missing.status).not.toBe(0);
      expect(missing.stderr).toMatch(/\.env\.example/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
