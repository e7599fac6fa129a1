import { loadConfig, type NoetlConfig } from '@noetl/config';
import type { ApiKeys, ApiKeyView } from '@noetl/runtime';
import type { ApiKeyRole } from '@noetl/storage';
import type { Command } from 'commander';
import { processOutput, type CliOutput } from '../shared/cli-output';
import { addOutputOptions, type OutputOptions, printItem, printList } from '../shared/output-format';

/**
 * API_KEY_ROLES of @noetl/storage, which is too heavy to load for `noetl
 * help`; keys.command.spec.ts keeps the two equal.
 */
export const KEY_ROLES_HELP = 'admin, operator, developer, viewer or worker';

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
  addOutputOptions(
    keys
      .command('create')
      .description('make a key; it is printed this once (-q prints only the key: KEY=$(noetl keys create --role worker -q))')
      .requiredOption('--role <role>', KEY_ROLES_HELP)
      .option('--name <name>', 'what it is for', 'cli')
      .option('--tenant <id>', 'its tenant (default NOETL_TENANT_ID)')
      .option('--organization <id>', 'its organization (default NOETL_ORGANIZATION_ID)'),
  ).action(async (opts: ScopeOptions & OutputOptions & { role: string; name: string }) => {
    const { API_KEY_ROLES } = await import('@noetl/storage');
    const role = API_KEY_ROLES.find((name) => name === opts.role);
    if (!role) throw new Error(`--role must be one of ${API_KEY_ROLES.join(', ')}`);
    await withKeys((apiKeys, scope) => createKey(apiKeys, { scope: scope(opts), role, name: opts.name }, opts, processOutput()));
  });
  addOutputOptions(
    keys
      .command('list')
      .description("the keys (every tenant's, or one's), revoked ones included, never their secrets")
      .option('--tenant <id>', 'only this tenant')
      .option('--organization <id>', 'with --tenant: only this organization (default NOETL_ORGANIZATION_ID)'),
  ).action(async (opts: ScopeOptions & OutputOptions) => {
    await withKeys(async (apiKeys, scope) => printKeys(await apiKeys.list(opts.tenant ? scope(opts) : undefined), opts, processOutput()));
  });
  keys
    .command('generate')
    .description('print a new key, made here and stored nowhere: a value for NOETL_BOOTSTRAP_ADMIN_KEY or NOETL_BOOTSTRAP_WORKER_KEY')
    .action(async () => {
      const { generateApiKey } = await import('@noetl/runtime');
      processOutput().out(generateApiKey());
    });
  keys
    .command('bootstrap')
    .description(
      "store the deployment's admin and worker keys, hashed: each from NOETL_BOOTSTRAP_ADMIN_KEY / NOETL_BOOTSTRAP_WORKER_KEY, else its file in NOETL_HOME (admin.key, worker.key); exit 1 when neither is found",
    )
    .option('--generate', 'make a key that is found nowhere, and write it to its file in NOETL_HOME (mode 0600)')
    .action(async (opts: { generate?: boolean }) => {
      const { BOOTSTRAP_KEY_VARIABLES, bootstrapKeysOf, provisionBootstrapKeys } = await import('@noetl/runtime');
      await withKeys(async (apiKeys, _scope, config) => {
        const found = bootstrapKeysOf(config, { home: true, generate: opts.generate === true });
        if (found.length === 0) {
          throw new Error(
            `no key to store: set ${Object.values(BOOTSTRAP_KEY_VARIABLES).join(' or ')} (\`noetl keys generate\` makes one), or pass --generate`,
          );
        }
        for (const key of await provisionBootstrapKeys(apiKeys, config, found)) {
          processOutput().out(
            `${key.role} key ${key.key_id} of ${key.tenant_id}/${key.organization_id} (${key.from}) ${key.outcome === 'revoked' ? 'is revoked' : 'is stored'}`,
          );
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

/** Prints a new key and where it belongs; the key itself on a line of its own (alone with --quiet). */
export async function createKey(
  apiKeys: ApiKeys,
  request: { scope: { tenantId: string; organizationId: string }; role: ApiKeyRole; name: string },
  options: OutputOptions,
  output: CliOutput,
): Promise<void> {
  const created = await apiKeys.create({ scope: request.scope, role: request.role, name: request.name, createdBy: 'cli' });
  await printItem(created, created.key, options, output, () => {
    output.out(`made ${created.role} key ${created.key_id} of ${created.tenant_id}/${created.organization_id}; it is shown this once:`);
    output.out(created.key);
  });
}

export function printKeys(keys: ApiKeyView[], options: OutputOptions, output: CliOutput): Promise<void> {
  return printList(
    keys,
    {
      columns: [
        ['KEY', (key) => key.key_id],
        ['ROLE', (key) => key.role],
        ['TENANT', (key) => key.tenant_id],
        ['ORGANIZATION', (key) => key.organization_id],
        ['NAME', (key) => key.name],
        ['CREATED', (key) => key.created_at],
        ['LAST USED', (key) => key.last_used_at ?? '-'],
        ['REVOKED', (key) => key.revoked_at ?? '-'],
      ],
      id: (key) => key.key_id,
      empty: 'no API keys',
    },
    options,
    output,
  );
}

async function withKeys(
  run: (
    apiKeys: ApiKeys,
    scope: (options: ScopeOptions) => { tenantId: string; organizationId: string },
    config: NoetlConfig,
  ) => Promise<void>,
): Promise<void> {
  const [{ DatabaseConnection }, { ApiKeys }, { ApiKeyRepository }] = await Promise.all([
    import('@noetl/platform'),
    import('@noetl/runtime'),
    import('@noetl/storage'),
  ]);
  const config = loadConfig(process.env);
  const connection = await DatabaseConnection.open(config);
  try {
    await run(
      new ApiKeys(connection.database, new ApiKeyRepository()),
      (options) => ({
        tenantId: options.tenant ?? config.tenancy.tenantId,
        organizationId: options.organization ?? config.tenancy.organizationId,
      }),
      config,
    );
  } finally {
    await connection.onApplicationShutdown();
  }
}
