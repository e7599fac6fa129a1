import { loadConfig, type NoetlConfig } from '@noetl/config';
import { DatabaseConnection } from '@noetl/platform';
import { ApiKeys, BOOTSTRAP_KEY_VARIABLES, bootstrapKeysOf, generateApiKey, provisionBootstrapKeys, type ApiKeyView } from '@noetl/runtime';
import { API_KEY_ROLES, ApiKeyRepository, type ApiKeyRole, type Database } from '@noetl/storage';
import type { Command } from 'commander';
import { processOutput, type CliOutput } from '../shared/cli-output';

interface ScopeOptions {
  tenant?: string;
  organization?: string;
}

/**
 * `noetl keys`: the API keys of a deployment, on its database (DATABASE_URL,
 * else the embedded PostgreSQL), as its operator manages them: any tenant's,
 * which is how a new tenant gets its first admin key. A tenant's admin
 * manages its own over REST (`/api/keys`).
 */
export function registerKeysCommand(program: Command): void {
  const keys = program.command('keys').description('API keys, on the database (DATABASE_URL, else the embedded PostgreSQL)');
  keys
    .command('create')
    .description('make a key; it is printed this once')
    .requiredOption('--role <role>', `one of ${API_KEY_ROLES.join(', ')}`)
    .option('--name <name>', 'what it is for', 'cli')
    .option('--tenant <id>', 'its tenant (default NOETL_TENANT_ID)')
    .option('--organization <id>', 'its organization (default NOETL_ORGANIZATION_ID)')
    .option('--json', 'print the key and its record as JSON')
    .action(async (opts: ScopeOptions & { role: string; name: string; json?: boolean }) => {
      const role = API_KEY_ROLES.find((name) => name === opts.role);
      if (!role) throw new Error(`--role must be one of ${API_KEY_ROLES.join(', ')}`);
      await withKeys((apiKeys, scope) => createKey(apiKeys, { scope: scope(opts), role, name: opts.name, json: opts.json === true }, processOutput()));
    });
  keys
    .command('list')
    .description("the keys (every tenant's, or one's), revoked ones included, never their secrets")
    .option('--tenant <id>', 'only this tenant')
    .option('--organization <id>', 'with --tenant: only this organization (default NOETL_ORGANIZATION_ID)')
    .option('--json', 'print the list as JSON')
    .action(async (opts: ScopeOptions & { json?: boolean }) => {
      await withKeys(async (apiKeys, scope) => printKeys(await apiKeys.list(opts.tenant ? scope(opts) : undefined), opts.json === true, processOutput()));
    });
  keys
    .command('generate')
    .description('print a new key, made here and stored nowhere: a value for NOETL_BOOTSTRAP_ADMIN_KEY or NOETL_BOOTSTRAP_WORKER_KEY')
    .action(() => processOutput().out(generateApiKey()));
  keys
    .command('bootstrap')
    .description(
      "store the deployment's admin and worker keys, hashed: each from NOETL_BOOTSTRAP_ADMIN_KEY / NOETL_BOOTSTRAP_WORKER_KEY, else its file in NOETL_HOME (admin.key, worker.key); exit 1 when neither is found",
    )
    .option('--generate', 'make a key that is found nowhere, and write it to its file in NOETL_HOME (mode 0600)')
    .action(async (opts: { generate?: boolean }) => {
      await withKeys(async (apiKeys, _scope, config) => {
        const found = bootstrapKeysOf(config, { home: true, generate: opts.generate === true });
        if (found.length === 0) {
          throw new Error(`no key to store: set ${Object.values(BOOTSTRAP_KEY_VARIABLES).join(' or ')} (\`noetl keys generate\` makes one), or pass --generate`);
        }
        for (const key of await provisionBootstrapKeys(apiKeys, config, found)) {
          processOutput().out(`${key.role} key ${key.key_id} of ${key.tenant_id}/${key.organization_id} (${key.from}) ${key.outcome === 'revoked' ? 'is revoked' : 'is stored'}`);
        }
      });
    });
  keys
    .command('revoke <key-id>')
    .description('revoke a key: every server refuses it within seconds')
    .action(async (keyId: string) => {
      await withKeys(async (apiKeys) => {
        const revoked = await apiKeys.revoke(keyId);
        processOutput().out(`revoked ${revoked.key_id} (${revoked.role} of ${revoked.tenant_id}/${revoked.organization_id})`);
      });
    });
}

/** Prints a new key and where it belongs; the key itself on a line of its own. */
export async function createKey(
  apiKeys: ApiKeys,
  request: { scope: { tenantId: string; organizationId: string }; role: ApiKeyRole; name: string; json: boolean },
  output: CliOutput,
): Promise<void> {
  const created = await apiKeys.create({ scope: request.scope, role: request.role, name: request.name, createdBy: 'cli' });
  if (request.json) {
    output.out(JSON.stringify(created, null, 2));
    return;
  }
  output.out(`made ${created.role} key ${created.key_id} of ${created.tenant_id}/${created.organization_id}; it is shown this once:`);
  output.out(created.key);
}

const COLUMNS = ['KEY', 'ROLE', 'TENANT', 'ORGANIZATION', 'NAME', 'CREATED', 'LAST USED', 'REVOKED'];

export function printKeys(keys: ApiKeyView[], json: boolean, output: CliOutput): void {
  if (json) {
    output.out(JSON.stringify(keys, null, 2));
    return;
  }
  if (keys.length === 0) {
    output.out('no API keys');
    return;
  }
  const rows = [COLUMNS, ...keys.map((key) => [key.key_id, key.role, key.tenant_id, key.organization_id, key.name, key.created_at, key.last_used_at ?? '-', key.revoked_at ?? '-'])];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((cells) => cells[i]!.length)));
  for (const cells of rows) output.out(cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
}

async function withKeys(
  run: (apiKeys: ApiKeys, scope: (options: ScopeOptions) => { tenantId: string; organizationId: string }, config: NoetlConfig) => Promise<void>,
): Promise<void> {
  const config = loadConfig(process.env);
  const connection = await DatabaseConnection.open(config);
  try {
    const database: Database = connection.database;
    await run(new ApiKeys(database, new ApiKeyRepository()), (options) => ({
      tenantId: options.tenant ?? config.tenancy.tenantId,
      organizationId: options.organization ?? config.tenancy.organizationId,
    }), config);
  } finally {
    await connection.onApplicationShutdown();
  }
}
