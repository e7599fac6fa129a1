import { type NoetlConfig, writeAdminKeyFile } from '@noetl/config';
import type { ApiKeys } from '@noetl/runtime';
import type { Logger } from 'pino';

/**
 * Auth at the start of an api process (issue 11): with NOETL_AUTH=off, a
 * warning at every start; on a deployment that has no key yet, the first
 * admin key (of NOETL_TENANT_ID), written to `$NOETL_HOME/admin.key` with
 * mode 0600, where the CLI finds it. The log says where, never the key.
 */
export async function bootstrapAuth(keys: ApiKeys, config: NoetlConfig, logger: Logger): Promise<void> {
  const { tenantId, organizationId } = config.tenancy;
  if (!config.auth.enabled) {
    logger.warn(`NOETL_AUTH=off: the API asks no key; every caller acts as admin of tenant "${tenantId}", organization "${organizationId}"`);
    return;
  }
  let path = '';
  const created = await keys.bootstrap(config.tenancy, (key) => (path = writeAdminKeyFile(config.home, key.key)));
  if (!created) return;
  logger.warn(
    { key_id: created.key_id, tenant: tenantId, organization: organizationId, path },
    `no API key existed: made admin key ${created.key_id}, written to ${path} (mode 0600); the CLI reads it from there, or send it as Authorization: Bearer`,
  );
}
