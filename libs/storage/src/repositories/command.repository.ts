import { streamIdOf, type CommandStatus, type IssuedCommandFields, type JsonObject } from '@noetl/event-kernel';
import { enqueueWrite, type Queryable } from '../database';
import { TERMINAL_EVENT_TYPES_SQL } from '../event-unique-keys';
import type { LedgerTransaction } from '../ledger-transaction';
import { prepared, type Sql } from '../prepared-statements';
import { streamHeadColumn, takeStreamHead } from '../stream-locks';
import type { TenantScope } from '../storage-error';
import { isBigintId } from './bigint-id';
import { normaliseStuck, type StuckRow } from './stuck-row';

/** `noetl.command`: derived from the ledger; the row lock is what serialises reports on one command. */
export interface CommandRow {
  command_id: string;
  execution_id: string;
  step: string;
  run_id: string | null;
  kind: string | null;
  attempt: number;
  max_attempts: number;
  status: CommandStatus;
  spec: JsonObject | null;
  worker_id: string | null;
  lease_until: Date | null;
  /** sha256 of the lease token its claimer received; null while nobody holds it. */
  lease_token: string | null;
  created_at: Date;
  /** A fan-out shard's loop and the collection index of its item (DSL.md s4.2); null for a step's command. */
  loop_id: string | null;
  iteration: number | null;
}

/** A command row locked for a report, and whether its execution's terminal event is in the ledger. */
export type LockedCommand = CommandRow & { execution_ended: boolean };

/** The row a `command.issued` writes: the event's command, where it is, and where it goes. */
export interface IssuedCommand extends IssuedCommandFields {
  execution_id: string;
  issued_event_id: string;
  loop_id: string | null;
  iteration: number | null;
  /** The worker pool it was issued to (`spec.pool`); null: none. */
  pool: string | null;
}

/** A lease granted as the command is issued (eager dispatch): its row starts RUNNING, held by `workerId`. */
export interface IssuedLease {
  workerId: string;
  leaseUntil: Date;
  /** sha256 of the lease token its claimer received. */
  tokenHash: string;
}

/** A command that waits for a worker, as an offer names it. */
export interface CommandOffer {
  command_id: string;
  execution_id: string;
  tenant_id: string;
  run_id: string | null;
  spec: JsonObject | null;
}

/** How much work waits in one worker pool (null: work without a pool). */
export interface PoolCount {
  pool: string | null;
  count: number;
}

export const TERMINAL_COMMAND_STATUSES: readonly CommandStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'ABANDONED'];
export const OPEN_COMMAND_STATUSES: readonly CommandStatus[] = ['ISSUED', 'CLAIMED', 'RUNNING'];

export function isTerminalCommand(status: CommandStatus): boolean {
  return TERMINAL_COMMAND_STATUSES.includes(status);
}

const COLUMNS =
  'command_id, execution_id, step, run_id, kind, attempt, max_attempts, status, spec, worker_id, lease_until, lease_token, created_at, loop_id, iteration';

function normalise(row: CommandRow): CommandRow {
  return {
    ...row,
    command_id: String(row.command_id),
    execution_id: String(row.execution_id),
    loop_id: row.loop_id === null ? null : String(row.loop_id),
  };
}

const INSERT_ISSUED_SQL = prepared(`
  INSERT INTO noetl.command (command_id, execution_id, tenant_id, organization_id, step, run_id, kind, attempt, max_attempts,
                             status, spec, issued_event_id, notified_at, loop_id, iteration,
                             worker_id, lease_until, lease_token, claimed_at, started_at, pool)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $14::text IS NULL THEN 'ISSUED' ELSE 'RUNNING' END, $10::jsonb, $11, now(), $12, $13,
          $14, $15, $16, CASE WHEN $14::text IS NULL THEN NULL ELSE now() END, CASE WHEN $14::text IS NULL THEN NULL ELSE now() END, $17)
  ON CONFLICT (command_id) DO NOTHING`);
const OWNER_SQL = prepared(
  'SELECT execution_id FROM noetl.command WHERE command_id = $1::bigint AND tenant_id = $2 AND organization_id = $3',
);
const LOCK_SQL = prepared(`
  SELECT ${COLUMNS},
         EXISTS (SELECT 1 FROM noetl.event e WHERE e.execution_id = c.execution_id AND e.event_type IN ${TERMINAL_EVENT_TYPES_SQL}) AS execution_ended,
         ${streamHeadColumn(5)}
    FROM noetl.command c
   WHERE command_id = $1::bigint AND execution_id = $2::bigint AND tenant_id = $3 AND organization_id = $4 FOR UPDATE OF c`);
const READ_SQL = prepared(`
  SELECT ${COLUMNS},
         EXISTS (SELECT 1 FROM noetl.event e WHERE e.execution_id = c.execution_id AND e.event_type IN ${TERMINAL_EVENT_TYPES_SQL}) AS execution_ended
    FROM noetl.command c WHERE command_id = $1::bigint AND tenant_id = $2 AND organization_id = $3`);
const EXPECT_REPORT_SQL = prepared('SELECT noetl.expect_report($1::bigint, $2::bigint, $3, $4, $5, $6, $7, $8::int)');
const EXPECT_CLAIM_SQL = prepared('SELECT noetl.expect_claim($1::bigint, $2::bigint, $3, $4, $5, $6::int)');
const MARK_RUNNING_SQL = prepared(`
  UPDATE noetl.command SET status = 'RUNNING', worker_id = $2, lease_until = $3, lease_token = $4, claimed_at = now(), started_at = now()
   WHERE command_id = $1::bigint`);
const SET_LEASE_SQL = prepared('UPDATE noetl.command SET lease_until = $2, heartbeat_at = now() WHERE command_id = $1::bigint');
const END_SQL = prepared(`
  UPDATE noetl.command SET status = $2, completed_at = now(), lease_until = NULL, lease_token = NULL, terminal_event_id = $3
   WHERE command_id = $1::bigint AND status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED', 'ABANDONED')`);

/** Every statement against `noetl.command` (STYLE.md "One table, one repository"). */
export class CommandRepository {
  /** The row of a `command.issued`: ISSUED, or with `lease` RUNNING already (claimed in the same transaction). */
  async insertIssued(q: Queryable, scope: TenantScope, command: IssuedCommand, lease?: IssuedLease): Promise<void> {
    await enqueueWrite(q, INSERT_ISSUED_SQL, [
      command.command_id,
      command.execution_id,
      scope.tenantId,
      scope.organizationId,
      command.step,
      command.run_id,
      command.kind,
      command.attempt,
      command.max_attempts,
      JSON.stringify(command.spec),
      command.issued_event_id,
      command.loop_id,
      command.iteration,
      lease?.workerId ?? null,
      lease?.leaseUntil ?? null,
      lease?.tokenHash ?? null,
      command.pool,
    ]);
  }

  /**
   * The row, locked for the rest of `tx`, after its execution's stream lock
   * (always first, see Ledger.lockStream); undefined when unknown to this
   * tenant. `knownOwner`: its execution, as the caller remembers it (one
   * look-up less); a command not of that execution is then unknown.
   */
  async lock(tx: LedgerTransaction, scope: TenantScope, commandId: string, knownOwner?: string): Promise<LockedCommand | undefined> {
    if (!isBigintId(commandId)) return undefined;
    const owner =
      knownOwner ??
      (await tx.query<{ execution_id: string }>(OWNER_SQL, [commandId, scope.tenantId, scope.organizationId]))[0]?.execution_id;
    if (owner === undefined) return undefined;
    const stream = streamIdOf({ type: 'execution', id: String(owner) });
    await tx.lockStream(stream);
    // Whether the execution ended rides along (read after the stream lock, so final): one round trip less per report.
    // The stream's head rides along too (read under its lock): the report's append need not read it.
    const [row] = await tx.query<LockedCommand & { stream_head: number | null }>(LOCK_SQL, [
      commandId,
      owner,
      scope.tenantId,
      scope.organizationId,
      stream,
    ]);
    if (!row) return undefined;
    const locked = takeStreamHead(tx, stream, row);
    return { ...normalise(locked), execution_ended: locked.execution_ended };
  }

  /**
   * A report's expectation of the row, instead of its read: the worker
   * `expected.workerId` holds it with the lease token of hash
   * `expected.tokenHash`, and its execution's stream stands at
   * `expected.head`. Nothing is sent here: the stream lock and the guard
   * (migration ExpectedReport) go with the transaction's next statement,
   * and `head` is the head its appends continue from. When the row or the
   * stream is not so, that statement fails the transaction with
   * SqlState.NotAsExpected.
   */
  async expectReport(
    tx: LedgerTransaction,
    scope: TenantScope,
    expected: { commandId: string; executionId: string; workerId: string; tokenHash: string; head: number },
  ): Promise<void> {
    const { commandId, executionId, workerId, tokenHash, head } = expected;
    await expectUnderLock(tx, executionId, head, (stream) => [
      EXPECT_REPORT_SQL,
      [commandId, executionId, scope.tenantId, scope.organizationId, workerId, tokenHash, stream, head],
    ]);
  }

  /**
   * A claim's expectation of the row, instead of its read, as
   * `expectReport`: the row still ISSUED, and the stream at `expected.head`.
   */
  async expectClaim(
    tx: LedgerTransaction,
    scope: TenantScope,
    expected: { commandId: string; executionId: string; head: number },
  ): Promise<void> {
    const { commandId, executionId, head } = expected;
    await expectUnderLock(tx, executionId, head, (stream) => [
      EXPECT_CLAIM_SQL,
      [commandId, executionId, scope.tenantId, scope.organizationId, stream, head],
    ]);
  }

  /** The row as it stands, unlocked (a lease check that changes nothing); undefined when unknown to this tenant. */
  async read(q: Queryable, scope: TenantScope, commandId: string): Promise<LockedCommand | undefined> {
    if (!isBigintId(commandId)) return undefined;
    const [row] = await q.query<LockedCommand>(READ_SQL, [commandId, scope.tenantId, scope.organizationId]);
    return row ? { ...normalise(row), execution_ended: row.execution_ended } : undefined;
  }

  /** An expired lease's row, locked, when it is still expired (the sweep's view may be stale). */
  async lockExpired(q: Queryable, commandId: string): Promise<CommandRow | undefined> {
    const [row] = await q.query<CommandRow>(
      `SELECT ${COLUMNS} FROM noetl.command
        WHERE command_id = $1::bigint AND status IN ('CLAIMED', 'RUNNING') AND lease_until < now() FOR UPDATE`,
      [commandId],
    );
    return row ? normalise(row) : undefined;
  }

  async markRunning(q: Queryable, commandId: string, lease: { workerId: string; leaseUntil: Date; tokenHash: string }): Promise<void> {
    await enqueueWrite(q, MARK_RUNNING_SQL, [commandId, lease.workerId, lease.leaseUntil, lease.tokenHash]);
  }

  /** A new lease end; null gives the lease up (a `playbook` command waits for its child with no worker). */
  async setLease(q: Queryable, commandId: string, leaseUntil: Date | string | null): Promise<void> {
    await enqueueWrite(q, SET_LEASE_SQL, [commandId, leaseUntil]);
  }

  /** Back to ISSUED, unleased: its worker gave it back unrun (`command.released`). */
  async release(q: Queryable, commandId: string): Promise<void> {
    await q.query(
      `UPDATE noetl.command SET status = 'ISSUED', worker_id = NULL, lease_until = NULL, lease_token = NULL, claimed_at = NULL, started_at = NULL, notified_at = now()
        WHERE command_id = $1::bigint`,
      [commandId],
    );
  }

  /** The command ends (or is abandoned) with the event that says so; a command already ended keeps its end. */
  async end(q: Queryable, commandId: string, status: CommandStatus, terminalEventId: string | null): Promise<void> {
    await enqueueWrite(q, END_SQL, [commandId, status, terminalEventId]);
  }

  /** Open commands of an execution, locked, oldest first. */
  async lockOpenOf(q: Queryable, executionId: string): Promise<{ command_id: string; step: string }[]> {
    const rows = await q.query<{ command_id: string; step: string }>(
      `SELECT command_id, step FROM noetl.command
        WHERE execution_id = $1::bigint AND status IN ('ISSUED', 'CLAIMED', 'RUNNING') ORDER BY command_id FOR UPDATE`,
      [executionId],
    );
    return rows.map((row) => ({ ...row, command_id: String(row.command_id) }));
  }

  async expiredLeases(q: Queryable, scope: TenantScope, limit: number): Promise<{ command_id: string; execution_id: string }[]> {
    const rows = await q.query<{ command_id: string; execution_id: string }>(
      `SELECT command_id, execution_id FROM noetl.command
        WHERE status IN ('CLAIMED', 'RUNNING') AND lease_until < now() AND tenant_id = $1 AND organization_id = $2
        ORDER BY lease_until LIMIT $3`,
      [scope.tenantId, scope.organizationId, limit],
    );
    return rows.map((row) => ({ command_id: String(row.command_id), execution_id: String(row.execution_id) }));
  }

  /** ISSUED commands nobody claimed for `afterMs` since last offered, longest first (idx_command_unclaimed): stamped as offered again, and returned to be offered. */
  async reofferUnclaimed(q: Queryable, scope: TenantScope, afterMs: number, limit: number): Promise<CommandOffer[]> {
    const rows = await q.query<CommandOffer>(
      `UPDATE noetl.command SET notified_at = now()
        WHERE command_id IN (
          SELECT command_id FROM noetl.command
           WHERE status = 'ISSUED' AND notified_at < now() - make_interval(secs => $3::double precision / 1000)
             AND tenant_id = $1 AND organization_id = $2
           ORDER BY notified_at LIMIT $4)
        RETURNING command_id, execution_id, tenant_id, run_id, spec`,
      [scope.tenantId, scope.organizationId, afterMs, limit],
    );
    return rows.map((row) => ({ ...row, command_id: String(row.command_id), execution_id: String(row.execution_id) }));
  }

  /** Commands waiting for a worker, over every tenant, per worker pool (null: no pool), for the `noetl_command_backlog_total` gauge. */
  async backlog(q: Queryable): Promise<PoolCount[]> {
    return q.query<PoolCount>(
      `SELECT pool, count(*)::int AS count FROM noetl.command WHERE status = 'ISSUED' GROUP BY pool ORDER BY pool NULLS FIRST`,
    );
  }

  /** The tenant's commands waiting for a worker, per worker pool (null: no pool) (idx_command_issued_pool). */
  async backlogOf(q: Queryable, scope: TenantScope): Promise<PoolCount[]> {
    return q.query<PoolCount>(
      `SELECT pool, count(*)::int AS count FROM noetl.command
        WHERE status = 'ISSUED' AND tenant_id = $1 AND organization_id = $2 GROUP BY pool ORDER BY pool NULLS FIRST`,
      [scope.tenantId, scope.organizationId],
    );
  }

  /** Open commands that are stuck (see stuck-row.ts), oldest first; unclaimed means ISSUED for `unclaimedAfterMs`. */
  async stuck(q: Queryable, scope: TenantScope, query: { limit: number; unclaimedAfterMs: number }): Promise<StuckRow[]> {
    const rows = await q.query<StuckRow>(
      `SELECT * FROM (
       SELECT c.command_id AS id, c.execution_id, c.step, c.status, c.attempt, c.max_attempts, c.worker_id, c.lease_until,
              CASE
                WHEN c.status IN ('CLAIMED', 'RUNNING') AND c.lease_until < now() THEN 'lease_expired'
                WHEN c.status = 'RUNNING' AND now() - signal.at > (c.lease_until - signal.at) * 2 / 3 THEN 'silent_heartbeat'
                WHEN c.status = 'ISSUED' AND c.created_at < now() - make_interval(secs => $4::double precision / 1000) THEN 'unclaimed'
              END AS reason
         FROM noetl.command c
         JOIN noetl.execution e ON e.execution_id = c.execution_id AND e.status = 'RUNNING'
         CROSS JOIN LATERAL (SELECT GREATEST(c.claimed_at, c.started_at, c.heartbeat_at) AS at) signal
        WHERE c.status IN ('ISSUED', 'CLAIMED', 'RUNNING') AND c.tenant_id = $1 AND c.organization_id = $2
     ) stuck
     WHERE reason IS NOT NULL ORDER BY id LIMIT $3`,
      [scope.tenantId, scope.organizationId, query.limit, query.unclaimedAfterMs],
    );
    return rows.map(normaliseStuck);
  }
}

/** The execution's stream lock and `guard` (of that stream), queued; `head` is the head the transaction's appends continue from. */
async function expectUnderLock(
  tx: LedgerTransaction,
  executionId: string,
  head: number,
  guard: (stream: string) => [Sql, unknown[]],
): Promise<void> {
  const stream = streamIdOf({ type: 'execution', id: executionId });
  await tx.lockStream(stream);
  await tx.enqueue(...guard(stream));
  tx.noteHead(stream, head);
}
