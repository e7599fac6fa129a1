import { randomBytes } from 'node:crypto';
import { Secret } from '@noetl/config';
import { Database, type TenantScope } from '@noetl/storage';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';
import type { CredentialStore, CredentialUse } from './credential-types';
import { openCredentialCipher, PgCredentialStore } from './pg-credential-store';

const newKey = (): Secret => new Secret(randomBytes(32).toString('hex'));
const newScope = (): TenantScope => ({ tenantId: `t_${randomBytes(4).toString('hex')}`, organizationId: 'org' });
const PG_DATA = { host: 'db.internal', user: 'etl', password: 'p4ss-w0rd-!unique' };
/** A use by a command of an execution of `etl/daily` (the path a credential's binding is checked against). */
const USE: CredentialUse = { executionId: '41', path: 'etl/daily', step: 'load', holder: { kind: 'command', id: '42' }, workerId: 'w-1' };

describe('PgCredentialStore', () => {
  let testDb: TestDatabase;
  let db: Database;

  const openCredentialStore = async (on: Database, key: Secret | undefined, scope: TenantScope): Promise<CredentialStore> =>
    new PgCredentialStore(on, await openCredentialCipher(on, key), scope);

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await Database.connect(testDb.url);
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('stores, lists, shows, resolves and deletes a credential, never listing its data', async () => {
    const store = await openCredentialStore(db, newKey(), newScope());
    const summary = await store.put({ name: 'pg_main', type: 'postgres', data: PG_DATA });
    expect(summary).toEqual({
      name: 'pg_main',
      type: 'postgres',
      allowed_paths: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await store.list()).toEqual([summary]);
    expect(await store.get('pg_main')).toEqual(summary);
    expect(await store.resolve('pg_main', USE)).toEqual({ type: 'postgres', data: PG_DATA });
    await store.delete('pg_main');
    await expect(store.get('pg_main')).rejects.toMatchObject({ code: 'not_found' });
    await expect(store.delete('pg_main')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('replaces a credential on put with a fresh IV and keeps its creation time', async () => {
    const scope = newScope();
    const store = await openCredentialStore(db, newKey(), scope);
    const first = await store.put({ name: 'api', type: 'bearer', data: { token: 'one' } });
    const ivBefore = await rowOf(scope, 'api');
    const second = await store.put({ name: 'api', type: 'http', data: { token: 'two' } });
    expect(second.created_at).toBe(first.created_at);
    expect((await rowOf(scope, 'api')).iv.equals(ivBefore.iv)).toBe(false);
    expect(await store.resolve('api', USE)).toEqual({ type: 'http', data: { token: 'two' } });
  });

  it('hands a bound credential only to executions of the playbooks it names, and records every use', async () => {
    const store = await openCredentialStore(db, newKey(), newScope());
    await store.put({ name: 'warehouse', type: 'postgres', data: PG_DATA, allowed_paths: ['etl/**', 'reports/weekly'] });
    expect(await store.resolve('warehouse', USE)).toEqual({ type: 'postgres', data: PG_DATA });
    await expect(store.resolve('warehouse', { ...USE, path: 'scratch/exfiltrate' })).rejects.toMatchObject({
      code: 'credential_not_allowed',
      message: 'credential "warehouse" is not bound to playbook "scratch/exfiltrate" (allowed_paths: etl/**, reports/weekly)',
    });
    expect(await store.uses('warehouse', 10)).toEqual([
      {
        name: 'warehouse',
        execution_id: '41',
        path: 'etl/daily',
        step: 'load',
        holder_kind: 'command',
        holder_id: '42',
        worker_id: 'w-1',
        used_at: expect.any(String),
      },
    ]);
    await expect(store.put({ name: 'bad', type: 'http', data: {}, allowed_paths: [] })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(store.uses('nosuch', 10)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses an unbound credential to every playbook once the tenant requires binding', async () => {
    const store = await openCredentialStore(db, newKey(), newScope());
    await store.put({ name: 'loose', type: 'http', data: { token: 'tok-123456' } });
    expect(await store.settings()).toEqual({ require_binding: false });
    expect((await store.resolve('loose', USE)).data).toEqual({ token: 'tok-123456' });
    expect(await store.updateSettings({ require_binding: true })).toEqual({ require_binding: true });
    await expect(store.resolve('loose', USE)).rejects.toMatchObject({
      code: 'credential_not_allowed',
      message: expect.stringContaining('this tenant requires binding'),
    });
    await store.put({ name: 'loose', type: 'http', data: { token: 'tok-123456' }, allowed_paths: ['etl/*'] });
    expect((await store.resolve('loose', USE)).data).toEqual({ token: 'tok-123456' });
  });

  it('keeps no plaintext in the row', async () => {
    const scope = newScope();
    const store = await openCredentialStore(db, newKey(), scope);
    await store.put({ name: 'pg_main', type: 'postgres', data: PG_DATA });
    const row = await rowOf(scope, 'pg_main');
    expect(row.ciphertext.includes(PG_DATA.password)).toBe(false);
    expect(row.ciphertext.includes('password')).toBe(false);
    expect(row.iv).toHaveLength(12);
    expect(row.auth_tag).toHaveLength(16);
  });

  it('refuses to decrypt with another key, saying which key is wrong', async () => {
    const scope = newScope();
    await (await openCredentialStore(db, newKey(), scope)).put({ name: 'pg_main', type: 'postgres', data: PG_DATA });
    const other = await openCredentialStore(db, newKey(), scope);
    await expect(other.resolve('pg_main', USE)).rejects.toMatchObject({
      code: 'credentials_locked',
      message: expect.stringContaining('NOETL_ENCRYPTION_KEY is not the key it was stored with'),
    });
  });

  it('does not let a ciphertext copied onto another name decrypt', async () => {
    const scope = newScope();
    const store = await openCredentialStore(db, newKey(), scope);
    await store.put({ name: 'a', type: 'http', data: { token: 'secret-a' } });
    await store.put({ name: 'b', type: 'http', data: { token: 'secret-b' } });
    await db.query(
      `UPDATE noetl.credential b SET ciphertext = a.ciphertext, iv = a.iv, auth_tag = a.auth_tag
         FROM noetl.credential a
        WHERE a.tenant_id = $1 AND b.tenant_id = $1 AND a.name = 'a' AND b.name = 'b'`,
      [scope.tenantId],
    );
    await expect(store.resolve('b', USE)).rejects.toMatchObject({ code: 'credentials_locked' });
  });

  it('keeps tenants apart', async () => {
    const key = newKey();
    const mine = await openCredentialStore(db, key, newScope());
    const theirs = await openCredentialStore(db, key, newScope());
    await mine.put({ name: 'shared_name', type: 'http', data: { token: 'mine' } });
    expect(await theirs.list()).toEqual([]);
    await expect(theirs.resolve('shared_name', USE)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('rejects an invalid name before touching the database', async () => {
    const store = await openCredentialStore(db, newKey(), newScope());
    await expect(store.put({ name: 'no spaces', type: 'http', data: {} })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  describe('without a key', () => {
    // A database of their own: whether any tenant has credentials decides.
    let empty: TestDatabase;
    let emptyDb: Database;
    beforeAll(async () => {
      empty = await createTestDatabase();
      emptyDb = await Database.connect(empty.url);
    });
    afterAll(async () => {
      await emptyDb?.close();
      await empty?.drop();
    });

    it('opens locked when no tenant has credentials: lists, but neither stores nor resolves', async () => {
      const store = await openCredentialStore(emptyDb, undefined, newScope());
      expect(await store.list()).toEqual([]);
      await expect(store.put({ name: 'pg', type: 'postgres', data: PG_DATA })).rejects.toMatchObject({
        code: 'credentials_locked',
        message: expect.stringContaining('set NOETL_ENCRYPTION_KEY'),
      });
      await expect(store.resolve('pg', USE)).rejects.toMatchObject({ code: 'credentials_locked' });
    });

    it('refuses to open when any tenant has credentials', async () => {
      await (await openCredentialStore(emptyDb, newKey(), newScope())).put({ name: 'pg', type: 'postgres', data: PG_DATA });
      await expect(openCredentialCipher(emptyDb, undefined)).rejects.toMatchObject({
        code: 'credentials_locked',
        message: expect.stringMatching(/1 credential\(s\) are stored for 1 tenant organization\(s\).* set NOETL_ENCRYPTION_KEY/),
      });
      expect(await openCredentialCipher(emptyDb, undefined, { decrypts: false })).toBeUndefined();
    });
  });

  async function rowOf(scope: TenantScope, name: string): Promise<{ ciphertext: Buffer; iv: Buffer; auth_tag: Buffer }> {
    const [row] = await db.query<{ ciphertext: Buffer; iv: Buffer; auth_tag: Buffer }>(
      'SELECT ciphertext, iv, auth_tag FROM noetl.credential WHERE tenant_id = $1 AND organization_id = $2 AND name = $3',
      [scope.tenantId, scope.organizationId, name],
    );
    return row!;
  }
});
