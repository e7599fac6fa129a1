import 'reflect-metadata';
import { loadConfig } from '@noetl/config';
import { startApi } from '@noetl/roles';

async function main(): Promise<void> {
  // The api as a service of its own: only the api role, whatever NOETL_ROLES says.
  const config = { ...loadConfig(process.env), roles: ['api' as const] };
  const { logger } = await startApi(config, 'api');
  logger.info({ port: config.http.port }, 'api ready');
}

void main().catch((error: unknown) => {
  process.stderr.write(`api: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
