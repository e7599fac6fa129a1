import type { PayloadRef } from '@noetl/event-kernel';
import type { Queryable } from '../database';
import type { TenantScope } from '../storage-error';

/**
 * Which payload addresses the scope's ledger still names: a sha256 anywhere
 * in an event's payload or payload_ref (result, collection, frame output and
 * rows refs all carry one), or in an execution's result. A 64-hex string
 * that is not a ref only keeps an object longer, never deletes one wrongly.
 */
export class PayloadReferenceRepository {
  /** Those of `candidates` that some event or execution of the scope references; one pass over the scope's events. */
  async referencedAmong(q: Queryable, scope: TenantScope, candidates: readonly string[]): Promise<Set<string>> {
    if (candidates.length === 0) return new Set();
    const rows = await q.query<{ sha256: string }>(
      `WITH named AS (
         SELECT e.payload::text || coalesce(e.payload_ref::text, '') AS body FROM noetl.event e
          WHERE e.tenant_id = $1 AND e.organization_id = $2
         UNION ALL
         SELECT coalesce(x.result::text, '') || coalesce(x.result_ref::text, '') FROM noetl.execution x
          WHERE x.tenant_id = $1 AND x.organization_id = $2
       )
       SELECT DISTINCT m[1] AS sha256 FROM named CROSS JOIN LATERAL regexp_matches(named.body, '([0-9a-f]{64})', 'g') AS m
        WHERE m[1] = ANY($3::text[])`,
      [scope.tenantId, scope.organizationId, candidates],
    );
    return new Set(rows.map((row) => row.sha256));
  }

  /**
   * The refs of `mediaTypes` (manifests, whose parts are refs in turn) that
   * some event or execution of the scope names, each once; one pass over
   * the scope's events.
   */
  async refsOfTypes(q: Queryable, scope: TenantScope, mediaTypes: readonly string[]): Promise<PayloadRef[]> {
    const rows = await q.query<{ ref: PayloadRef }>(
      `WITH docs AS (
         SELECT e.payload AS doc FROM noetl.event e WHERE e.tenant_id = $1 AND e.organization_id = $2
         UNION ALL
         SELECT e.payload_ref FROM noetl.event e WHERE e.tenant_id = $1 AND e.organization_id = $2 AND e.payload_ref IS NOT NULL
         UNION ALL
         SELECT x.result FROM noetl.execution x WHERE x.tenant_id = $1 AND x.organization_id = $2 AND x.result IS NOT NULL
         UNION ALL
         SELECT x.result_ref FROM noetl.execution x WHERE x.tenant_id = $1 AND x.organization_id = $2 AND x.result_ref IS NOT NULL
       )
       SELECT DISTINCT ON (ref->>'sha256') ref FROM docs
         CROSS JOIN LATERAL jsonb_path_query(docs.doc, 'strict $.** ? (@.sha256.type() == "string" && @.media_type.type() == "string")') AS ref
        WHERE ref->>'media_type' = ANY($3::text[])`,
      [scope.tenantId, scope.organizationId, mediaTypes],
    );
    return rows.map((row) => row.ref);
  }
}
