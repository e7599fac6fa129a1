import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@noetl/config';
import { AppRootModule } from '@noetl/platform';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ApiModule, openApiDocument } from '@noetl/roles';

/** Where the web UI keeps the types of the REST API, from the repository root (committed; web-api-types.spec.ts says when they are stale). */
export const WEB_API_TYPES = 'web/src/api/schema.d.ts';

/** The api role's OpenAPI document, built in Nest's preview mode: its routes and schemas, with no database, broker or provider started. */
export async function apiDocument(): Promise<OpenAPIObject> {
  const app = await NestFactory.create(
    AppRootModule.forRoot(loadConfig({}), () => [ApiModule.forRoot()]),
    { preview: true, logger: false },
  );
  try {
    return openApiDocument(app);
  } finally {
    await app.close();
  }
}

/**
 * The web UI's API types: the openapi-typescript CLI over the document. Its
 * CLI, not its library, because the library's dependencies are ES modules
 * that Jest cannot load.
 */
export async function webApiTypes(repoRoot: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'noetl-openapi-'));
  try {
    const documentFile = join(dir, 'openapi.json');
    writeFileSync(documentFile, JSON.stringify(await apiDocument()));
    const cli = join(repoRoot, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
    const run = spawnSync(process.execPath, [cli, documentFile], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`openapi-typescript failed: ${run.stderr}`);
    return run.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
