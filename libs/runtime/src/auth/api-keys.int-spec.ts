import { ApiKeyRepository, Database } from '@noetl/storage';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';
import { ApiKeys, generateApiKey } from './api-keys';

const scope = { tenantId: 'acme', organizationId: 'ops' };

/** `provision`: a key the operator chose, stored under its own id, idempotently, and never over another. */
describe('ApiKeys.provision', () => {
  let database: TestDatabase;
  let db: Database;
  let keys: ApiKeys;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await Database.connect(database.url);
    keys = new ApiKeys(db, new ApiKeyRepository());
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('stores the key once; the key then verifies as its role and scope', async () => {
    const key = generateApiKey();
    const first = await keys.provision({ scope, role: 'worker', name: 'pool', key });
    const again = await keys.provision({ scope, role: 'worker', name: 'pool', key });
    expect(first).toMatchObject({ key_id: key.slice(6, 22), role: 'worker', outcome: 'present' });
    expect(again.created_at).toEqual(first.created_at);
    expect(await keys.verify(key)).toEqual({ scope, role: 'worker', subject: `key:${key.slice(6, 22)}` });
  });

  it('refuses a key id stored with another secret, role or scope, and changes nothing', async () => {
    const key = generateApiKey();
    await keys.provision({ scope, role: 'worker', name: 'pool', key });
    const otherSecret = `${key.slice(0, 23)}${generateApiKey().slice(23)}`;
    for (const request of [
      { scope, role: 'worker' as const, key: otherSecret },
      { scope, role: 'admin' as const, key },
      { scope: { ...scope, tenantId: 'other' }, role: 'worker' as const, key },
    ]) {
      await expect(keys.provision({ ...request, name: 'pool' })).rejects.toThrow(
        `API key ${key.slice(6, 22)} is already stored with another secret, role or scope`,
      );
    }
    expect(await keys.verify(key)).toMatchObject({ role: 'worker' });
    expect(await keys.verify(otherSecret)).toBeUndefined();
  });

  it('leaves a revoked key revoked, and says so', async () => {
    const key = generateApiKey();
    await keys.provision({ scope, role: 'admin', name: 'ops', key });
    await keys.revoke(key.slice(6, 22));
    expect(await keys.provision({ scope, role: 'admin', name: 'ops', key })).toMatchObject({ outcome: 'revoked' });
    expect(await keys.verify(key)).toBeUndefined();
  });

  it('refuses a value that is not a key, naming the form and where to get one', async () => {
    await expect(keys.provision({ scope, role: 'admin', name: 'ops', key: 'hunter2' })).rejects.toThrow(
      'the admin key to provision must read noetl_<16 hex>_<43 base64url>; `noetl keys generate` makes one',
    );
  });
});
