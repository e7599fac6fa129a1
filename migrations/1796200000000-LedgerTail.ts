import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Event types a purge keeps (DESIGN.md s5: what ran, how it ended, who purged it). */
const KEPT = `('execution.started', 'execution.completed', 'execution.failed', 'execution.cancelled', 'admin.action')`;

/**
 * One write per event (issue 23 item 1): the relay to JetStream and the
 * projector's in-process feed read `noetl.event` itself, in commit order,
 * where they read a copy of every event in `noetl.outbox`.
 *
 * Each event carries `tx`, the 64-bit id of the transaction that wrote it.
 * A reader takes the events whose `tx` is below the oldest transaction still
 * running (`pg_snapshot_xmin(pg_current_snapshot())`): every transaction
 * below it has ended, so no event can still commit among them, and a cursor
 * `(tx, event_id)` that only moves forward skips none. `noetl.ledger_cursor`
 * keeps each reader's cursor. Commits wake the readers (`noetl_events`, a
 * notification per inserting statement, delivered at COMMIT).
 *
 * Upgrade: the events written before this migration get `tx` 0 (a fast
 * default, no rewrite of the append-only table), so a cursor orders them by
 * event id. The relay's and the feed's cursors start just before the oldest
 * event the outbox had not published, so those are published (again, for
 * any published since: JetStream's message-id window and the projector's
 * version check drop them); with none, after the last event. Then the
 * outbox goes, and the purge no longer deletes from it.
 */
export class LedgerTail1796200000000 implements MigrationInterface {
  readonly name = 'LedgerTail1796200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.event ADD COLUMN tx xid8 NOT NULL DEFAULT '0'`);
    await queryRunner.query(`ALTER TABLE noetl.event ALTER COLUMN tx SET DEFAULT pg_current_xact_id()`);
    await queryRunner.query(`CREATE INDEX idx_event_tail ON noetl.event (tx, event_id)`);
    await queryRunner.query(`CREATE TABLE noetl.ledger_cursor (
      name       TEXT PRIMARY KEY,
      tx         xid8 NOT NULL,
      event_id   BIGINT NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
    await queryRunner.query(`INSERT INTO noetl.ledger_cursor (name, tx, event_id)
      SELECT reader, '0', COALESCE((SELECT min(event_id) - 1 FROM noetl.outbox WHERE published_at IS NULL), (SELECT max(event_id) FROM noetl.event), 0)
        FROM unnest(ARRAY['relay:*', 'projector:*']) AS reader`);
    await queryRunner.query(`CREATE FUNCTION noetl.notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('noetl_events', '');
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER event_notify AFTER INSERT ON noetl.event FOR EACH STATEMENT EXECUTE FUNCTION noetl.notify_events()`,
    );
    await queryRunner.query(purgeExecution(''));
    await queryRunner.query(`DROP TABLE noetl.outbox`);
    await queryRunner.query(`DROP FUNCTION noetl.notify_outbox()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE noetl.outbox (
      outbox_id       BIGSERIAL PRIMARY KEY,
      event_id        BIGINT NOT NULL,
      tenant_id       TEXT NOT NULL,
      organization_id TEXT NOT NULL,
      execution_id    BIGINT NOT NULL,
      subject         TEXT NOT NULL,
      event_type      TEXT NOT NULL,
      payload         JSONB NOT NULL,
      created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
      published_at    TIMESTAMPTZ,
      attempts        INT NOT NULL DEFAULT 0,
      CONSTRAINT uq_outbox_event UNIQUE (event_id)
    )`);
    await queryRunner.query(`CREATE INDEX idx_outbox_unpublished ON noetl.outbox (outbox_id) WHERE published_at IS NULL`);
    await queryRunner.query(`CREATE INDEX idx_outbox_published ON noetl.outbox (published_at) WHERE published_at IS NOT NULL`);
    await queryRunner.query(`CREATE FUNCTION noetl.notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('noetl_outbox', '');
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER outbox_notify AFTER INSERT ON noetl.outbox FOR EACH STATEMENT EXECUTE FUNCTION noetl.notify_outbox()`,
    );
    await queryRunner.query(
      purgeExecution(`DELETE FROM noetl.outbox o USING noetl.event e
         WHERE e.execution_id = execution AND o.event_id = e.event_id AND e.event_type NOT IN ${KEPT};`),
    );
    await queryRunner.query(`DROP TRIGGER event_notify ON noetl.event`);
    await queryRunner.query(`DROP FUNCTION noetl.notify_events()`);
    await queryRunner.query(`DROP TABLE noetl.ledger_cursor`);
    await queryRunner.query(`DROP INDEX noetl.idx_event_tail`);
    await queryRunner.query(`ALTER TABLE noetl.event DROP COLUMN tx`);
  }
}

/** `noetl.purge_execution` (AppendOnlyLedger), with `outbox` deleting what the outbox held of the purged events, when there was one. */
function purgeExecution(outbox: string): string {
  return `CREATE OR REPLACE FUNCTION noetl.purge_execution(execution BIGINT) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        purged integer;
      BEGIN
        IF NOT noetl.purge_audited(execution) THEN
          RAISE EXCEPTION 'purge of execution % needs its admin.action purge audit in the same transaction', execution
            USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF NOT EXISTS (SELECT 1 FROM noetl.event WHERE execution_id = execution
                        AND event_type IN ('execution.completed', 'execution.failed', 'execution.cancelled')) THEN
          RAISE EXCEPTION 'execution % has not ended: only an ended execution is purged', execution
            USING ERRCODE = 'object_not_in_prerequisite_state';
        END IF;
        ${outbox}
        DELETE FROM noetl.event WHERE execution_id = execution AND event_type NOT IN ${KEPT};
        GET DIAGNOSTICS purged = ROW_COUNT;
        DELETE FROM noetl.frame WHERE execution_id = execution;
        DELETE FROM noetl.stage WHERE execution_id = execution;
        DELETE FROM noetl.command WHERE execution_id = execution;
        DELETE FROM noetl.timer WHERE execution_id = execution;
        DELETE FROM noetl.projection_snapshot WHERE aggregate_type = 'execution' AND aggregate_id = execution::text;
        DELETE FROM noetl.projection WHERE execution_id = execution;
        RETURN purged;
      END $$`;
}
