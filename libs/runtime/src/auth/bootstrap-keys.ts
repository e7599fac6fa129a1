import { keyFilePath, readKeyFile, writeKeyFile, type KeyFileRole, type NoetlConfig } from '@noetl/config';
import { generateApiKey, type ApiKeys, type ProvisionedKey } from './api-keys';

/** The variable that gives each of the operator's keys. */
export const BOOTSTRAP_KEY_VARIABLES = { admin: 'NOETL_BOOTSTRAP_ADMIN_KEY', worker: 'NOETL_BOOTSTRAP_WORKER_KEY' } as const;

/** A key to store, and where it came from, for a message an operator can act on. */
export interface BootstrapKey {
  role: KeyFileRole;
  key: string;
  from: string;
}

export type BootstrappedKey = ProvisionedKey & { from: string };

/**
 * The deployment's keys: each role's from its variable (the secret store);
 * with `home`, else from its file in NOETL_HOME (`admin.key`, `worker.key`);
 * with `generate` as well, else a new key written to that file. The api
 * reads the variables only: a key file it finds in a home may belong to
 * another deployment.
 */
export function bootstrapKeysOf(
  config: Pick<NoetlConfig, 'auth' | 'home'>,
  sources: { home?: boolean; generate?: boolean } = {},
): BootstrapKey[] {
  const found: BootstrapKey[] = [];
  for (const role of Object.keys(BOOTSTRAP_KEY_VARIABLES) as KeyFileRole[]) {
    const given = config.auth.bootstrapKeys[role]?.reveal();
    const kept = sources.home ? readKeyFile(config.home, role) : undefined;
    if (given) found.push({ role, key: given, from: BOOTSTRAP_KEY_VARIABLES[role] });
    else if (kept) found.push({ role, key: kept, from: keyFilePath(config.home, role) });
    else if (sources.home && sources.generate) {
      const key = generateApiKey();
      found.push({ role, key, from: `new, written to ${writeKeyFile(config.home, role, key)}` });
    }
  }
  return found;
}

/**
 * Stores each key, hashed, of NOETL_TENANT_ID/NOETL_ORGANIZATION_ID with its
 * role: what the api does at every start and `noetl keys bootstrap` on
 * demand. Idempotent; a key id stored with another secret, role or scope throws.
 */
export async function provisionBootstrapKeys(
  keys: ApiKeys,
  config: Pick<NoetlConfig, 'tenancy'>,
  found: BootstrapKey[],
): Promise<BootstrappedKey[]> {
  const provisioned: BootstrappedKey[] = [];
  for (const { role, key, from } of found) {
    const stored = await keys
      .provision({ scope: config.tenancy, role, name: `bootstrap ${role}`, createdBy: 'bootstrap', key })
      .catch((error: unknown) => {
        throw new Error(`the ${role} key (${from}): ${error instanceof Error ? error.message : String(error)}`);
      });
    provisioned.push({ ...stored, from });
  }
  return provisioned;
}
