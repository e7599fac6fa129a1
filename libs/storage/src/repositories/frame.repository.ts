import { streamIdOf, type FrameStatus, type JsonObject, type PayloadRef } from '@noetl/event-kernel';
import { enqueueWrite, type Queryable } from '../database';
import { TERMINAL_EVENT_TYPES_SQL } from '../event-unique-keys';
import type { LedgerTransaction } from '../ledger-transaction';
import { prepared } from '../prepared-statements';
import { streamHeadColumn, takeStreamHead } from '../stream-locks';
import type { TenantScope } from '../storage-error';
import { isBigintId } from './bigint-id';
import { normaliseStuck, type StuckRow } from './stuck-row';
import type { PoolCount } from './command.repository';

/** `noetl.frame` joined with what its stage says about it. */
export interface FrameRow {
  frame_id: string;
  stage_id: string;
  execution_id: string;
  frame_index: number;
  cursor: { first?: number };
  row_count: number;
  status: FrameStatus;
  owner_worker: string | null;
  lease_until: Date | null;
  /** sha256 of the lease token its claimer received; null while nobody holds it. */
  lease_token: string | null;
  attempts: number;
  loop_id: string;
  step_name: string;
  frame_policy: JsonObject;
  /** The tool kinds its stage's loop body runs. */
  tools: string[];
  /** Its stage's worker pool; null: none. */
  pool: string | null;
  /** The credentials its loop body names; null: any of the tenant's (a name is a template). */
  credentials: string[] | null;
}

/** A frame that waits for a claim. */
export interface PendingFrame {
  frame_id: string;
  frame_index: number;
  cursor: { first?: number };
  row_count: number;
  attempts: number;
}

export const TERMINAL_FRAME_STATUSES: readonly FrameStatus[] = ['COMMITTED', 'FAILED', 'CANCELLED'];
export const HELD_FRAME_STATUSES: readonly FrameStatus[] = ['CLAIMED', 'RUNNING'];

const FRAME_COLUMNS = `f.frame_id, f.stage_id, f.execution_id, f.frame_index, f.cursor, f.row_count, f.status, f.owner_worker,
  f.lease_until, f.lease_token, f.attempts, s.loop_id, s.step_name, s.frame_policy, s.tools, s.pool, s.credentials`;

/** A frame row locked for a report, and whether its execution's terminal event is in the ledger. */
export type LockedFrame = FrameRow & { execution_ended: boolean };

function normalise(row: FrameRow): FrameRow {
  return {
    ...row,
    frame_id: String(row.frame_id),
    stage_id: String(row.stage_id),
    execution_id: String(row.execution_id),
    loop_id: String(row.loop_id),
  };
}

const OWNER_SQL = prepared('SELECT execution_id FROM noetl.frame WHERE frame_id = $1::bigint AND tenant_id = $2 AND organization_id = $3');
const READ_SQL = prepared(`
  SELECT ${FRAME_COLUMNS},
         EXISTS (SELECT 1 FROM noetl.event e WHERE e.execution_id = f.execution_id AND e.event_type IN ${TERMINAL_EVENT_TYPES_SQL}) AS execution_ended
    FROM noetl.frame f JOIN noetl.stage s ON s.stage_id = f.stage_id
   WHERE f.frame_id = $1::bigint AND f.tenant_id = $2 AND f.organization_id = $3`);
const LOCK_OF_EXECUTION_SQL = prepared(`
  SELECT ${FRAME_COLUMNS},
         EXISTS (SELECT 1 FROM noetl.event e WHERE e.execution_id = f.execution_id AND e.event_type IN ${TERMINAL_EVENT_TYPES_SQL}) AS execution_ended,
         ${streamHeadColumn(2)}
    FROM noetl.frame f JOIN noetl.stage s ON s.stage_id = f.stage_id
   WHERE f.frame_id = ANY($1::bigint[]) AND f.execution_id = $3::bigint AND f.tenant_id = $4 AND f.organization_id = $5
   ORDER BY f.frame_id FOR UPDATE OF f`);

const MARK_RUNNING_SQL = prepared(
  `UPDATE noetl.frame SET status = 'RUNNING', owner_worker = $2, lease_until = $3, attempts = $4, lease_token = $5, heartbeat_at = now() WHERE frame_id = $1::bigint`,
);
const SET_LEASE_SQL = prepared('UPDATE noetl.frame SET lease_until = $2, heartbeat_at = now() WHERE frame_id = $1::bigint');
const MARK_COMMITTED_SQL = prepared(`
  UPDATE noetl.frame SET status = 'COMMITTED', lease_until = NULL, lease_token = NULL, output_ref = $2::jsonb, row_count = $3, completed_at = now(),
         terminal_event_id = $4 WHERE frame_id = $1::bigint`);
const MARK_FAILED_SQL = prepared(
  `UPDATE noetl.frame SET status = 'FAILED', lease_until = NULL, lease_token = NULL, completed_at = now(), terminal_event_id = $2 WHERE frame_id = $1::bigint`,
);

const CLAIMABLE_SQL = prepared(`
  SELECT (SELECT count(*)::int FROM noetl.frame WHERE stage_id = $1::bigint AND status IN ('CLAIMED', 'RUNNING')) AS held,
         p.frame_id, p.frame_index, p.cursor, p.row_count, p.attempts
    FROM (SELECT 1) AS one
    LEFT JOIN LATERAL (SELECT frame_id, frame_index, cursor, row_count, attempts FROM noetl.frame
                        WHERE stage_id = $1::bigint AND status = 'PENDING' ORDER BY frame_index LIMIT $2) p ON true
   ORDER BY p.frame_index`);

/** Every statement against `noetl.frame` (STYLE.md "One table, one repository"). */
export class FrameRepository {
  /**
   * A collection stage's frames: frame i covers rows [i * maxRows,
   * min(size, (i + 1) * maxRows)), one id each from `frameIds`.
   */
  async insertForStage(
    q: Queryable,
    scope: TenantScope,
    stage: { stageId: string; executionId: string; frameIds: string[]; maxRows: number; size: number },
  ): Promise<void> {
    await q.query(
      `INSERT INTO noetl.frame (frame_id, tenant_id, organization_id, stage_id, execution_id, frame_index, cursor, row_count)
       SELECT id, $2, $3, $4, $5, i - 1,
              jsonb_build_object('first', (i - 1) * $6::int),
              LEAST($6::int, $7::int - (i - 1) * $6::int)
         FROM unnest($1::bigint[]) WITH ORDINALITY AS f(id, i)`,
      [stage.frameIds, scope.tenantId, scope.organizationId, stage.stageId, stage.executionId, stage.maxRows, stage.size],
    );
  }

  /** A cursor stage's next frame slot (its rows come from the claim SQL at the worker). */
  async insertCursorFrame(
    q: Queryable,
    scope: TenantScope,
    frame: { frameId: string; stageId: string; executionId: string; frameIndex: number },
  ): Promise<PendingFrame> {
    await q.query(
      `INSERT INTO noetl.frame (frame_id, tenant_id, organization_id, stage_id, execution_id, frame_index, cursor, row_count)
       VALUES ($1, $2, $3, $4, $5, $6, '{}'::jsonb, 0)`,
      [frame.frameId, scope.tenantId, scope.organizationId, frame.stageId, frame.executionId, frame.frameIndex],
    );
    return { frame_id: frame.frameId, frame_index: frame.frameIndex, cursor: {}, row_count: 0, attempts: 0 };
  }

  /** Whether a cursor stage is drained (a claim came back empty) and the index of its next frame. */
  async cursorState(q: Queryable, stageId: string): Promise<{ drained: boolean; next: number }> {
    const [row] = await q.query<{ drained: boolean | null; next: number }>(
      `SELECT bool_or(status = 'COMMITTED' AND row_count = 0) AS drained, COALESCE(max(frame_index) + 1, 0)::int AS next
         FROM noetl.frame WHERE stage_id = $1::bigint`,
      [stageId],
    );
    return { drained: row?.drained === true, next: row?.next ?? 0 };
  }

  /**
   * How many frames of the stage are held (claimed or running), and its
   * `limit` lowest pending frames (none when none are): what claims need,
   * in one round trip.
   */
  async claimable(q: Queryable, stageId: string, limit = 1): Promise<{ held: number; next: PendingFrame[] }> {
    const rows = await q.query<{ held: number } & { [K in keyof PendingFrame]: PendingFrame[K] | null }>(CLAIMABLE_SQL, [stageId, limit]);
    const next: PendingFrame[] = [];
    for (const { frame_id, frame_index, cursor, row_count, attempts } of rows) {
      if (frame_id !== null)
        next.push({ frame_id: String(frame_id), frame_index: frame_index!, cursor: cursor!, row_count: row_count!, attempts: attempts! });
    }
    return { held: rows[0]?.held ?? 0, next };
  }

  /**
   * The frame row as it stands, unlocked (a lease check that changes
   * nothing: a frame's worker asking for a credential); undefined when
   * unknown to this tenant.
   */
  async read(q: Queryable, scope: TenantScope, frameId: string): Promise<LockedFrame | undefined> {
    if (!isBigintId(frameId)) return undefined;
    const [row] = await q.query<LockedFrame>(READ_SQL, [frameId, scope.tenantId, scope.organizationId]);
    return row ? { ...normalise(row), execution_ended: row.execution_ended } : undefined;
  }

  /** The frame's execution; undefined when the frame is unknown to this tenant. */
  async executionOf(q: Queryable, scope: TenantScope, frameId: string): Promise<string | undefined> {
    if (!isBigintId(frameId)) return undefined;
    const [owner] = await q.query<{ execution_id: string }>(OWNER_SQL, [frameId, scope.tenantId, scope.organizationId]);
    return owner && String(owner.execution_id);
  }

  /** The frame row, locked, after its execution's stream lock (always first). */
  async lock(tx: LedgerTransaction, scope: TenantScope, frameId: string): Promise<LockedFrame | undefined> {
    const executionId = await this.executionOf(tx, scope, frameId);
    if (executionId === undefined) return undefined;
    const [locked] = (await this.lockOfExecution(tx, scope, executionId, [frameId])).values();
    return locked;
  }

  /**
   * Frames of one execution, locked in id order after the execution's
   * stream lock (first): a batch of reports. A frame of another execution
   * or tenant, or unknown, is left out.
   */
  async lockOfExecution(
    tx: LedgerTransaction,
    scope: TenantScope,
    executionId: string,
    frameIds: readonly string[],
  ): Promise<Map<string, LockedFrame>> {
    const ids = frameIds.filter(isBigintId);
    if (ids.length === 0 || !isBigintId(executionId)) return new Map();
    const stream = streamIdOf({ type: 'execution', id: executionId });
    await tx.lockStream(stream);
    // Whether the execution ended rides along (read after the stream lock, so final), and the stream's head: round trips less per report.
    const rows = await tx.query<LockedFrame & { stream_head: number | null }>(LOCK_OF_EXECUTION_SQL, [
      ids,
      stream,
      executionId,
      scope.tenantId,
      scope.organizationId,
    ]);
    const locked = new Map<string, LockedFrame>();
    for (const row of rows) {
      const frame = takeStreamHead(tx, stream, row);
      locked.set(String(frame.frame_id), { ...normalise(frame), execution_ended: frame.execution_ended });
    }
    return locked;
  }

  async markRunning(
    q: Queryable,
    frameId: string,
    lease: { workerId: string; leaseUntil: string; attempts: number; tokenHash: string },
  ): Promise<void> {
    await enqueueWrite(q, MARK_RUNNING_SQL, [frameId, lease.workerId, lease.leaseUntil, lease.attempts, lease.tokenHash]);
  }

  async setLease(q: Queryable, frameId: string, leaseUntil: string): Promise<void> {
    await enqueueWrite(q, SET_LEASE_SQL, [frameId, leaseUntil]);
  }

  /** `outputRef`: the rows as Arrow in the payload store, when their results did not fit inline in the event. */
  async markCommitted(
    q: Queryable,
    frameId: string,
    commit: { outputRef: PayloadRef | null; rowCount: number; eventId: string | null },
  ): Promise<void> {
    await enqueueWrite(q, MARK_COMMITTED_SQL, [
      frameId,
      commit.outputRef && JSON.stringify(commit.outputRef),
      commit.rowCount,
      commit.eventId,
    ]);
  }

  /** Every open frame of the execution (pending or held) is CANCELLED by its end, in one statement; returns how many. */
  async cancelOpenOf(q: Queryable, executionId: string, endEventId: string): Promise<number> {
    const rows = await q.query(
      `UPDATE noetl.frame SET status = 'CANCELLED', lease_until = NULL, lease_token = NULL, completed_at = now(), terminal_event_id = $2
        WHERE execution_id = $1::bigint AND status IN ('PENDING', 'CLAIMED', 'RUNNING')
       RETURNING 1`,
      [executionId, endEventId],
    );
    return rows.length;
  }

  async markFailed(q: Queryable, frameId: string, eventId: string | null): Promise<void> {
    await enqueueWrite(q, MARK_FAILED_SQL, [frameId, eventId]);
  }

  /**
   * Back to PENDING, claimable again whole (abandoned or reclaimed). A frame
   * its worker gave back unrun (`refundAttempt`) gets its claim back too.
   */
  async release(q: Queryable, frameId: string, options: { refundAttempt?: boolean } = {}): Promise<void> {
    await q.query(
      `UPDATE noetl.frame SET status = 'PENDING', owner_worker = NULL, lease_until = NULL, lease_token = NULL, heartbeat_at = NULL,
              attempts = CASE WHEN $2 THEN GREATEST(attempts - 1, 0) ELSE attempts END
        WHERE frame_id = $1::bigint`,
      [frameId, options.refundAttempt === true],
    );
  }

  async expiredLeases(q: Queryable, scope: TenantScope, limit: number): Promise<string[]> {
    const rows = await q.query<{ frame_id: string }>(
      `SELECT frame_id FROM noetl.frame
        WHERE status IN ('CLAIMED', 'RUNNING') AND lease_until < now() AND tenant_id = $1 AND organization_id = $2
        ORDER BY lease_until LIMIT $3`,
      [scope.tenantId, scope.organizationId, limit],
    );
    return rows.map((row) => String(row.frame_id));
  }

  /** Frames waiting for a claim in open stages, over every tenant, per worker pool (null: no pool), for the `noetl_frame_backlog_total` gauge. */
  async backlog(q: Queryable): Promise<PoolCount[]> {
    return q.query<PoolCount>(
      `SELECT s.pool, count(*)::int AS count FROM noetl.frame f JOIN noetl.stage s ON s.stage_id = f.stage_id
        WHERE f.status = 'PENDING' AND s.status = 'OPEN' GROUP BY s.pool ORDER BY s.pool NULLS FIRST`,
    );
  }

  /** The tenant's frames waiting for a claim in open stages, per worker pool (null: no pool). */
  async backlogOf(q: Queryable, scope: TenantScope): Promise<PoolCount[]> {
    return q.query<PoolCount>(
      `SELECT s.pool, count(*)::int AS count FROM noetl.stage s JOIN noetl.frame f ON f.stage_id = s.stage_id
        WHERE s.status = 'OPEN' AND s.tenant_id = $1 AND s.organization_id = $2 AND f.status = 'PENDING'
        GROUP BY s.pool ORDER BY s.pool NULLS FIRST`,
      [scope.tenantId, scope.organizationId],
    );
  }

  /**
   * Open frames that are stuck (see stuck-row.ts), oldest first. A frame's
   * attempts are its claims; its budget is its stage's `max_attempts`, else
   * `defaultMaxAttempts`; its sign of life is its last dispatch or heartbeat (`heartbeat_at`).
   */
  async stuck(
    q: Queryable,
    scope: TenantScope,
    query: { limit: number; unclaimedAfterMs: number; defaultMaxAttempts: number },
  ): Promise<StuckRow[]> {
    const rows = await q.query<StuckRow>(
      `SELECT * FROM (
       SELECT f.frame_id AS id, f.execution_id, s.step_name AS step, f.status, f.attempts AS attempt, policy.max_attempts,
              f.owner_worker AS worker_id, f.lease_until,
              CASE
                WHEN f.status IN ('CLAIMED', 'RUNNING') AND f.lease_until < now() THEN 'lease_expired'
                WHEN f.status = 'RUNNING' AND now() - signal.at > (f.lease_until - signal.at) * 2 / 3 THEN 'silent_heartbeat'
                WHEN f.status = 'PENDING' AND f.attempts >= policy.max_attempts THEN 'attempts_exhausted'
                WHEN f.status = 'PENDING' AND f.created_at < now() - make_interval(secs => $4::double precision / 1000) THEN 'unclaimed'
              END AS reason
         FROM noetl.frame f
         JOIN noetl.execution e ON e.execution_id = f.execution_id AND e.status = 'RUNNING'
         JOIN noetl.stage s ON s.stage_id = f.stage_id
         CROSS JOIN LATERAL (
           -- frameMaxAttempts in SQL: a positive whole number, else the default.
           SELECT CASE WHEN jsonb_typeof(s.frame_policy -> 'max_attempts') = 'number'
                        AND (s.frame_policy ->> 'max_attempts')::numeric >= 1
                        AND (s.frame_policy ->> 'max_attempts')::numeric % 1 = 0
                       THEN (s.frame_policy ->> 'max_attempts')::numeric::int ELSE $5::int END AS max_attempts
         ) policy
         CROSS JOIN LATERAL (SELECT COALESCE(f.heartbeat_at, f.created_at) AS at) signal
        WHERE f.status IN ('PENDING', 'CLAIMED', 'RUNNING') AND f.tenant_id = $1 AND f.organization_id = $2
     ) stuck
     WHERE reason IS NOT NULL ORDER BY id LIMIT $3`,
      [scope.tenantId, scope.organizationId, query.limit, query.unclaimedAfterMs, query.defaultMaxAttempts],
    );
    return rows.map(normaliseStuck);
  }
}
