import type { Queryable } from '../database';
import type { TenantScope } from '../storage-error';

/** The projection of one execution: the reducer's state after `version` events of its stream. */
export interface ProjectionRow<S> {
  executionId: string;
  version: number;
  state: S;
  checksum: string;
}

/** A snapshot may seed a replay only when it was folded by the same reducer and upcasters. */
export interface SnapshotRow<S> extends ProjectionRow<S> {
  reducerVersion: string;
  registryDigest: string;
}

const EXECUTION = 'execution';

interface StoredRow<S> {
  projection_key: string;
  version: string;
  state: S;
  checksum: string;
}

/**
 * Every statement against `noetl.projection` and `noetl.projection_snapshot`
 * (STYLE.md "One table, one repository"). Writes are version-monotonic: a
 * row moves only forward, so a duplicate or stale delivery changes nothing.
 */
export class ProjectionRepository {
  /** `reducerVersion`: the fold this process runs (REDUCER_VERSION); a row folded by another reads as absent, and is written over. */
  constructor(private readonly reducerVersion: string) {}

  async get<S>(q: Queryable, scope: TenantScope, executionId: string): Promise<ProjectionRow<S> | undefined> {
    const [row] = await q.query<StoredRow<S>>(
      `SELECT projection_key, version, state, checksum FROM noetl.projection
        WHERE tenant_id = $1 AND organization_id = $2 AND projection_type = '${EXECUTION}' AND projection_key = $3 AND reducer_version = $4`,
      [scope.tenantId, scope.organizationId, executionId, this.reducerVersion],
    );
    return row && toRow(row);
  }

  /** The projections of `executionIds` that exist, by execution (one read for a projector's batch). */
  async getMany<S>(q: Queryable, scope: TenantScope, executionIds: readonly string[]): Promise<Map<string, ProjectionRow<S>>> {
    const rows = await q.query<StoredRow<S>>(
      `SELECT projection_key, version, state, checksum FROM noetl.projection
        WHERE tenant_id = $1 AND organization_id = $2 AND projection_type = '${EXECUTION}' AND projection_key = ANY($3::text[]) AND reducer_version = $4`,
      [scope.tenantId, scope.organizationId, [...executionIds], this.reducerVersion],
    );
    return new Map(rows.map((row) => [row.projection_key, toRow(row)]));
  }

  /**
   * Writes each row unless a row at the same or a later version is there
   * (a row moves only forward; another reducer's row at the same version is
   * written over), in one statement; returns the executions whose row was
   * written (the others were stale).
   */
  async upsertMany<S>(q: Queryable, scope: TenantScope, rows: readonly ProjectionRow<S>[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const written = await q.query<{ projection_key: string }>(
      `INSERT INTO noetl.projection (tenant_id, organization_id, projection_type, projection_key, execution_id, version, state, checksum, reducer_version)
       SELECT $1, $2, '${EXECUTION}', r.key, r.key::bigint, r.version, r.state::jsonb, r.checksum, $7
         FROM unnest($3::text[], $4::bigint[], $5::text[], $6::text[]) AS r(key, version, state, checksum)
       ON CONFLICT (tenant_id, organization_id, projection_type, projection_key) DO UPDATE
          SET version = EXCLUDED.version, state = EXCLUDED.state, checksum = EXCLUDED.checksum, reducer_version = EXCLUDED.reducer_version, updated_at = now()
        WHERE noetl.projection.version < EXCLUDED.version
           OR (noetl.projection.version = EXCLUDED.version AND noetl.projection.reducer_version <> EXCLUDED.reducer_version)
       RETURNING projection_key`,
      [
        scope.tenantId,
        scope.organizationId,
        rows.map((row) => row.executionId),
        rows.map((row) => row.version),
        rows.map((row) => JSON.stringify(row.state)),
        rows.map((row) => row.checksum),
        this.reducerVersion,
      ],
    );
    return new Set(written.map((row) => row.projection_key));
  }

  /** Drops the projections of `executionIds` (every execution when omitted) and their snapshots; returns how many projections went. */
  async delete(q: Queryable, scope: TenantScope, executionIds?: readonly string[]): Promise<number> {
    const ids = executionIds ? [...executionIds] : null;
    await q.query(
      `DELETE FROM noetl.projection_snapshot
        WHERE tenant_id = $1 AND organization_id = $2 AND aggregate_type = '${EXECUTION}' AND ($3::text[] IS NULL OR aggregate_id = ANY($3::text[]))`,
      [scope.tenantId, scope.organizationId, ids],
    );
    const deleted = await q.query(
      `DELETE FROM noetl.projection
        WHERE tenant_id = $1 AND organization_id = $2 AND projection_type = '${EXECUTION}' AND ($3::text[] IS NULL OR projection_key = ANY($3::text[]))
       RETURNING 1`,
      [scope.tenantId, scope.organizationId, ids],
    );
    return deleted.length;
  }

  async saveSnapshot<S>(q: Queryable, scope: TenantScope, row: SnapshotRow<S>): Promise<void> {
    await q.query(
      `INSERT INTO noetl.projection_snapshot (tenant_id, organization_id, aggregate_type, aggregate_id, version, state, reducer_version, registry_digest, checksum)
       VALUES ($1, $2, '${EXECUTION}', $3, $4, $5::jsonb, $6, $7, $8)
       ON CONFLICT (tenant_id, organization_id, aggregate_type, aggregate_id, version) DO NOTHING`,
      [
        scope.tenantId,
        scope.organizationId,
        row.executionId,
        row.version,
        JSON.stringify(row.state),
        row.reducerVersion,
        row.registryDigest,
        row.checksum,
      ],
    );
  }

  /** The latest snapshot at or before `atVersion` folded by this reducer and these upcasters. */
  async snapshotAtOrBefore<S>(
    q: Queryable,
    scope: TenantScope,
    executionId: string,
    atVersion: number,
    folding: { reducerVersion: string; registryDigest: string },
  ): Promise<ProjectionRow<S> | undefined> {
    const [row] = await q.query<StoredRow<S>>(
      `SELECT aggregate_id AS projection_key, version, state, checksum FROM noetl.projection_snapshot
        WHERE tenant_id = $1 AND organization_id = $2 AND aggregate_type = '${EXECUTION}' AND aggregate_id = $3
          AND version <= $4 AND reducer_version = $5 AND registry_digest = $6
        ORDER BY version DESC LIMIT 1`,
      [scope.tenantId, scope.organizationId, executionId, atVersion, folding.reducerVersion, folding.registryDigest],
    );
    return row && toRow(row);
  }
}

function toRow<S>(row: StoredRow<S>): ProjectionRow<S> {
  return { executionId: row.projection_key, version: Number(row.version), state: row.state, checksum: row.checksum };
}
