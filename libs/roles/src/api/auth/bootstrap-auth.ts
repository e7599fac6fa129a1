import { keyFilePath, type NoetlConfig, writeKeyFile } from '@noetl/config';
import { bootstrapKeysOf, provisionBootstrapKeys, type ApiKeys } from '@noetl/runtime';
import type { Logger } from 'pino';

/**
 * Auth at the start of an api process (issue 11, issue 26): with
 * NOETL_AUTH=off, a warning at every start. Otherwise the keys the operator
 * gave (NOETL_BOOTSTRAP_ADMIN_KEY, NOETL_BOOTSTRAP_WORKER_KEY) are stored,
 * hashed; with no admin key given, a deployment that has no key yet gets
 * its first admin key, written to `$NOETL_HOME/admin.key` with mode 0600,
 * where the CLI finds it. The log says where, never the key.
 */
export async function bootstrapAuth(keys: ApiKeys, config: NoetlConfig, logger: Logger): Promise<void> {
  const { tenantId, organizationId } = config.tenancy;
  if (!config.auth.enabled) {
    logger.warn(
      `NOETL_AUTH=off: the API asks no key; every caller acts as admin of tenant "${tenantId}", organization "${organizationId}"`,
    );
    return;
  }
  // The first admin key is made before a worker key is stored: it is made only while no key exists.
  if (!config.auth.bootstrapKeys.admin) await makeFirstAdminKey(keys, config, logger);
  for (const key of await provisionBootstrapKeys(keys, config, bootstrapKeysOf(config))) {
    const what = `${key.role} key ${key.key_id} of ${key.tenant_id}/${key.organization_id} (${key.from})`;
    if (key.outcome === 'revoked') logger.warn(`${what} is revoked: every server refuses it; give ${key.from} a new key`);
    else logger.info(`${what} is stored`);
  }
}

/**
 * A deployment's first admin key, kept in NOETL_HOME. Where that cannot be
 * written (a read-only root filesystem and no NOETL_HOME), nothing is made
 * and the api still starts: failing would only repeat the same rollback at
 * every restart. The log says how to give the deployment its keys.
 */
async function makeFirstAdminKey(keys: ApiKeys, config: NoetlConfig, logger: Logger): Promise<void> {
  const path = keyFilePath(config.home, 'admin');
  let unwritable: unknown;
  const created = await keys
    .bootstrap(config.tenancy, (key) => {
      try {
        writeKeyFile(config.home, 'admin', key.key);
      } catch (error) {
        unwritable = error;
        throw error;
      }
    })
    .catch((error: unknown) => {
      if (unwritable === undefined) throw error;
      return undefined;
    });
  if (unwritable !== undefined) {
    logger.error(
      { err: unwritable },
      `no API key exists, and the first admin key could not be written to ${path}, so none was made: give the deployment its keys from its secret store ` +
        '(NOETL_BOOTSTRAP_ADMIN_KEY, made by `noetl keys generate`) or a writable NOETL_HOME; `noetl keys create --role admin` on the database makes one meanwhile',
    );
    return;
  }
  if (!created) return;
  logger.warn(
    { key_id: created.key_id, tenant: created.tenant_id, organization: created.organization_id, path },
    `no API key existed: made admin key ${created.key_id}, written to ${path} (mode 0600); the CLI reads it from there, or send it as Authorization: Bearer`,
  );
}
