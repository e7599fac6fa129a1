import type { Queryable } from '../database';
import type { LedgerTransaction } from '../ledger-transaction';
import { prepared } from '../prepared-statements';
import type { TenantScope } from '../storage-error';

/** A catalog row without its content: what a lookup reads (a start parses nothing when the model is cached). */
export interface CatalogRow {
  catalog_id: string;
  path: string;
  version: number;
  name: string | null;
  created_at: Date;
}

/** A version to store: its YAML, the document as JSON, the parsed model (JSON) at its format. */
export interface NewCatalogVersion {
  catalogId: string;
  path: string;
  version: number;
  content: string;
  /** The YAML document as JSON (`playbook`, jsonb). */
  document: string;
  checksum: string;
  /** The parsed model as JSON text (`model`, json: its key order kept) and the format it was made at. */
  model: string;
  modelFormat: number;
}

const ENTRY_COLUMNS = `catalog_id, path, version, playbook->'metadata'->>'name' AS name, created_at`;
// Prepared (one per shape, as a generic plan needs), so a start's lookup goes with its BEGIN in one round trip.
const ENTRY_SQL = `SELECT ${ENTRY_COLUMNS} FROM noetl.catalog WHERE tenant_id = $1 AND organization_id = $2`;
const BY_ID_SQL = prepared(`${ENTRY_SQL} AND catalog_id = $3::bigint`);
const LATEST_SQL = prepared(`${ENTRY_SQL} AND path = $3 ORDER BY version DESC LIMIT 1`);
const VERSION_SQL = prepared(`${ENTRY_SQL} AND path = $3 AND version = $4::int`);
const EXPECT_LATEST_SQL = prepared('SELECT noetl.expect_latest_playbook($1, $2, $3, $4::int)');
/** A row's stored model when it is of format $2, else its content to parse (never both: a model is the larger read). */
const STORED_MODEL_SQL = `SELECT CASE WHEN model_format = $2 THEN model END AS model, CASE WHEN model_format IS DISTINCT FROM $2 THEN content END AS content
                            FROM noetl.catalog WHERE catalog_id = $1::bigint`;

/** Every statement against `noetl.catalog` (STYLE.md "One table, one repository"). */
export class CatalogRepository {
  /** Holds the path's version numbering for the rest of `q`'s transaction: two registrations never take one number. */
  async lockPath(q: Queryable, scope: TenantScope, path: string): Promise<void> {
    await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 1))', [`catalog:${scope.tenantId}:${scope.organizationId}:${path}`]);
  }

  /** The path's latest version with its checksum, if any. */
  async latestVersion(
    q: Queryable,
    scope: TenantScope,
    path: string,
  ): Promise<{ catalog_id: string; version: number; checksum: string } | undefined> {
    const [row] = await q.query<{ catalog_id: string; version: number; checksum: string }>(
      `SELECT catalog_id, version, checksum FROM noetl.catalog
        WHERE tenant_id = $1 AND organization_id = $2 AND path = $3 ORDER BY version DESC LIMIT 1`,
      [scope.tenantId, scope.organizationId, path],
    );
    return row;
  }

  async insert(q: Queryable, scope: TenantScope, row: NewCatalogVersion): Promise<void> {
    await q.query(
      `INSERT INTO noetl.catalog (catalog_id, tenant_id, organization_id, path, version, content, playbook, checksum, model, model_format)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9::json, $10)`,
      [
        row.catalogId,
        scope.tenantId,
        scope.organizationId,
        row.path,
        row.version,
        row.content,
        row.document,
        row.checksum,
        row.model,
        row.modelFormat,
      ],
    );
  }

  /** The latest version of every path. */
  async latestOfEachPath(q: Queryable, scope: TenantScope): Promise<CatalogRow[]> {
    return q.query<CatalogRow>(
      `SELECT DISTINCT ON (path) ${ENTRY_COLUMNS} FROM noetl.catalog
        WHERE tenant_id = $1 AND organization_id = $2 ORDER BY path, version DESC`,
      [scope.tenantId, scope.organizationId],
    );
  }

  /** Every version of a path, newest first. */
  async versions(q: Queryable, scope: TenantScope, path: string): Promise<CatalogRow[]> {
    return q.query<CatalogRow>(
      `SELECT ${ENTRY_COLUMNS} FROM noetl.catalog
        WHERE tenant_id = $1 AND organization_id = $2 AND path = $3 ORDER BY version DESC`,
      [scope.tenantId, scope.organizationId, path],
    );
  }

  async byId(q: Queryable, scope: TenantScope, catalogId: string): Promise<CatalogRow | undefined> {
    const [row] = await q.query<CatalogRow>(BY_ID_SQL, [scope.tenantId, scope.organizationId, catalogId]);
    return row;
  }

  /** A path's version, or its latest without one. */
  async byPath(q: Queryable, scope: TenantScope, path: string, version?: number): Promise<CatalogRow | undefined> {
    const [row] =
      version === undefined
        ? await q.query<CatalogRow>(LATEST_SQL, [scope.tenantId, scope.organizationId, path])
        : await q.query<CatalogRow>(VERSION_SQL, [scope.tenantId, scope.organizationId, path, version]);
    return row;
  }

  /**
   * A read of the path's latest version, expected to be `row` instead: the
   * guard (migration ExpectedCatalog) goes with the transaction's next
   * statement, and fails it with SqlState.PlaybookNotLatest when a newer
   * version is there.
   */
  async expectLatest(tx: LedgerTransaction, scope: TenantScope, row: CatalogRow): Promise<void> {
    await tx.enqueue(EXPECT_LATEST_SQL, [scope.tenantId, scope.organizationId, row.path, row.version]);
  }

  /** The YAML as registered. */
  async content(q: Queryable, catalogId: string): Promise<string | undefined> {
    const [row] = await q.query<{ content: string }>('SELECT content FROM noetl.catalog WHERE catalog_id = $1::bigint', [catalogId]);
    return row?.content;
  }

  /** The stored model (`M`, the model type of `format`) when it is of `format`, else the YAML to parse again; undefined: no such row. */
  async model<M>(q: Queryable, catalogId: string, format: number): Promise<{ model: M | null; content: string | null } | undefined> {
    const [row] = await q.query<{ model: M | null; content: string | null }>(STORED_MODEL_SQL, [catalogId, format]);
    return row;
  }
}
