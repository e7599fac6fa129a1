import { streamIdOf, type JsonObject } from '@noetl/event-kernel';
import type { Queryable } from '../database';
import { TERMINAL_EVENT_TYPES_SQL } from '../event-unique-keys';
import type { LedgerTransaction } from '../ledger-transaction';
import { prepared } from '../prepared-statements';
import { streamHeadColumn, takeStreamHead } from '../stream-locks';
import type { TenantScope } from '../storage-error';
import { isBigintId } from './bigint-id';

export type StageMode = 'sequential' | 'parallel' | 'cursor';

/** A stage row locked for a claim, and whether its execution's terminal event is in the ledger. */
export type LockedStage = StageRow & { execution_ended: boolean };

export interface StageRow {
  stage_id: string;
  execution_id: string;
  loop_id: string;
  step_name: string;
  status: string;
  mode: StageMode;
  max_in_flight: number;
  frame_policy: JsonObject;
  frame_count: number | null;
  /** The tool kinds its loop body runs. */
  tools: string[];
  /** The worker pool its frames go to; null: none. */
  pool: string | null;
}

/** The row a `stage.opened` writes. */
export interface OpenedStage {
  stage_id: string;
  execution_id: string;
  loop_id: string;
  step_name: string;
  kind: string;
  frame_policy: JsonObject;
  frame_count: number | null;
  opened_event_id: string;
  mode: StageMode;
  max_in_flight: number;
  size: number | null;
  tools: string[];
  /** The worker pool its frames go to; null: none. */
  pool: string | null;
  /** The credentials its loop body names; null: any of the tenant's (a name is a template). */
  credentials: string[] | null;
}

/** A stage with frames to claim and free slots: offer it once per slot. */
export interface StageOffer {
  stage_id: string;
  execution_id: string;
  tenant_id: string;
  slots: number;
  tools: string[];
  pool: string | null;
}

const OWNER_SQL = prepared('SELECT execution_id FROM noetl.stage WHERE stage_id = $1::bigint AND tenant_id = $2 AND organization_id = $3');
const LOCK_SQL = prepared(`
  SELECT stage_id, execution_id, loop_id, step_name, status, mode, max_in_flight, frame_policy, frame_count, tools, pool,
         EXISTS (SELECT 1 FROM noetl.event e WHERE e.execution_id = st.execution_id AND e.event_type IN ${TERMINAL_EVENT_TYPES_SQL}) AS execution_ended,
         ${streamHeadColumn(2)}
    FROM noetl.stage st
   WHERE stage_id = $1::bigint AND execution_id = $3::bigint AND tenant_id = $4 AND organization_id = $5 FOR UPDATE OF st`);

/** Every statement against `noetl.stage` (STYLE.md "One table, one repository"). */
export class StageRepository {
  /** False when the stage exists already (a re-planned `stage.opened`). */
  async insert(q: Queryable, scope: TenantScope, stage: OpenedStage): Promise<boolean> {
    const inserted = await q.query(
      `INSERT INTO noetl.stage (stage_id, tenant_id, organization_id, execution_id, loop_id, step_name, kind, frame_policy, frame_count,
                                opened_event_id, mode, max_in_flight, size, tools, credentials, pool, notified_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13, $14, $15, $16, now())
       ON CONFLICT (stage_id) DO NOTHING RETURNING stage_id`,
      [
        stage.stage_id,
        scope.tenantId,
        scope.organizationId,
        stage.execution_id,
        stage.loop_id,
        stage.step_name,
        stage.kind,
        JSON.stringify(stage.frame_policy),
        stage.frame_count,
        stage.opened_event_id,
        stage.mode,
        stage.max_in_flight,
        stage.size,
        stage.tools,
        stage.credentials,
        stage.pool,
      ],
    );
    return inserted.length > 0;
  }

  /** The stage row, locked, after its execution's stream lock; `knownOwner`: its execution, as the caller knows it (one look-up less). */
  async lock(tx: LedgerTransaction, scope: TenantScope, stageId: string, knownOwner?: string): Promise<LockedStage | undefined> {
    if (!isBigintId(stageId)) return undefined;
    const owner =
      knownOwner ?? (await tx.query<{ execution_id: string }>(OWNER_SQL, [stageId, scope.tenantId, scope.organizationId]))[0]?.execution_id;
    if (owner === undefined) return undefined;
    const stream = streamIdOf({ type: 'execution', id: String(owner) });
    await tx.lockStream(stream);
    // Whether the execution ended rides along (read after the stream lock, so final), and the stream's head: round trips less per claim.
    const [row] = await tx.query<LockedStage & { stream_head: number | null }>(LOCK_SQL, [
      stageId,
      stream,
      owner,
      scope.tenantId,
      scope.organizationId,
    ]);
    if (!row) return undefined;
    const locked = takeStreamHead(tx, stream, row);
    return { ...locked, stage_id: String(locked.stage_id), execution_id: String(locked.execution_id), loop_id: String(locked.loop_id) };
  }

  /** Every open stage of the execution, closed by its end (the execution's terminal event), in one statement. */
  async closeOpenOf(q: Queryable, executionId: string, endEventId: string): Promise<void> {
    await q.query(
      `UPDATE noetl.stage SET status = 'CLOSED', ended_at = now(), closed_event_id = $2 WHERE execution_id = $1::bigint AND status = 'OPEN'`,
      [executionId, endEventId],
    );
  }

  async close(q: Queryable, stageId: string, closedEventId: string): Promise<void> {
    await q.query(`UPDATE noetl.stage SET status = 'CLOSED', ended_at = now(), closed_event_id = $2 WHERE stage_id = $1::bigint`, [
      stageId,
      closedEventId,
    ]);
  }

  /** Open stages with claimable frames and a free slot that nobody took for `afterMs`: stamped as offered again, and returned. */
  async reofferIdle(q: Queryable, scope: TenantScope, afterMs: number, limit: number): Promise<StageOffer[]> {
    const rows = await q.query<StageOffer>(
      `UPDATE noetl.stage s SET notified_at = now()
         FROM (SELECT st.stage_id,
                      st.max_in_flight - (SELECT count(*) FROM noetl.frame f WHERE f.stage_id = st.stage_id AND f.status IN ('CLAIMED', 'RUNNING'))::int AS slots
                 FROM noetl.stage st
                WHERE st.status = 'OPEN' AND st.tenant_id = $1 AND st.organization_id = $2
                  AND (st.notified_at IS NULL OR st.notified_at < now() - make_interval(secs => $3::double precision / 1000))
                  AND (st.mode = 'cursor' OR EXISTS (SELECT 1 FROM noetl.frame f WHERE f.stage_id = st.stage_id AND f.status = 'PENDING'))
                LIMIT $4) free
        WHERE s.stage_id = free.stage_id AND free.slots > 0
        RETURNING s.stage_id, s.execution_id, s.tenant_id, s.tools, s.pool, free.slots`,
      [scope.tenantId, scope.organizationId, afterMs, limit],
    );
    return rows.map((row) => ({ ...row, stage_id: String(row.stage_id), execution_id: String(row.execution_id) }));
  }
}
