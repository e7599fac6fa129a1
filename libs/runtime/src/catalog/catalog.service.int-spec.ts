import { SnowflakeIds } from '@noetl/event-kernel';
import { PLAYBOOK_MODEL_FORMAT } from '@noetl/dsl';
import { Database } from '@noetl/storage';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';
import { CatalogService } from './catalog.service';

const scope = { tenantId: 'default', organizationId: 'default' };
const YAML = `apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: stored_model, path: catalog/stored-model}
workload: {zeta: 1, alpha: 2}
workflow:
  - step: start
    tool: {kind: noop}
    next: [{step: finish}]
  - step: finish
    tool: {kind: noop}
`;

/** What another process (an empty cache) makes of the catalog row. */
const freshlyRead = (db: Database, catalogId: string) => new CatalogService(db, new SnowflakeIds(2, Date.now), scope).playbook(catalogId);

describe('CatalogService: the stored model', () => {
  let database: TestDatabase;
  let db: Database;
  let catalogId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await Database.connect(database.url);
    ({ catalog_id: catalogId } = await new CatalogService(db, new SnowflakeIds(1, Date.now), scope).register(YAML));
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const update = (sql: string): Promise<unknown> => db.query(`UPDATE noetl.catalog SET ${sql} WHERE catalog_id = $1::bigint`, [catalogId]);

  it('stores the parsed model at this format beside the YAML, in its key order', async () => {
    const [row] = await db.query<{ model: string; model_format: number }>(
      'SELECT model::text AS model, model_format FROM noetl.catalog WHERE catalog_id = $1::bigint',
      [catalogId],
    );
    expect(row!.model_format).toBe(PLAYBOOK_MODEL_FORMAT);
    expect(JSON.stringify(JSON.parse(row!.model))).toBe(JSON.stringify(await freshlyRead(db, catalogId)));
    expect(Object.keys((await freshlyRead(db, catalogId)).workload)).toEqual(['zeta', 'alpha']);
  });

  it('gives another process the stored model without parsing the YAML', async () => {
    const expected = await freshlyRead(db, catalogId);
    await update(`content = 'not: [a playbook'`);
    try {
      expect(await freshlyRead(db, catalogId)).toEqual(expected);
    } finally {
      await update(`content = '${YAML.replace(/'/g, "''")}'`);
    }
  });

  it('parses the YAML again for a model of another format, or a row registered before models were stored', async () => {
    const expected = await freshlyRead(db, catalogId);
    await update(`model = '{"path": "stale"}', model_format = ${PLAYBOOK_MODEL_FORMAT - 1}`);
    expect(await freshlyRead(db, catalogId)).toEqual(expected);
    await update(`model = NULL, model_format = NULL`);
    expect(await freshlyRead(db, catalogId)).toEqual(expected);
    await update(`content = 'not: [a playbook'`);
    await expect(freshlyRead(db, catalogId)).rejects.toThrow(/no longer parses/);
  });
});
