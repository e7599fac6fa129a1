import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every index on `noetl.event` earns its place by a query (issue 23 item
 * 2). Left: the primary key (event ids), `uidx_event_stream_version` (every
 * read of a stream, every append's head), `idx_event_tail` (the relay and
 * the projector's feed) and the partial unique indexes of the invariants
 * (command.issued per command, loop.done per loop, one terminal per
 * execution, an idempotency key once), each only for the events it guards.
 *
 * Gone: `idx_event_execution` and `idx_event_execution_type` (no query
 * reads events by execution id and id or type: streams are read by version,
 * an execution's end through `uidx_event_terminal`), the stage and frame
 * indexes, and with them the admin's look-up of a command's or frame's
 * latest heartbeat among its execution's events: the row keeps it now
 * (`heartbeat_at`, written by the same statement that extends the lease).
 * An ordinary append writes three index entries (seven, with its outbox copy, before LedgerTail).
 */
export class LeanEventIndexes1796200000001 implements MigrationInterface {
  readonly name = 'LeanEventIndexes1796200000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.command ADD COLUMN heartbeat_at TIMESTAMPTZ`);
    await queryRunner.query(`ALTER TABLE noetl.frame ADD COLUMN heartbeat_at TIMESTAMPTZ`);
    for (const index of [
      'idx_event_execution',
      'idx_event_execution_type',
      'idx_event_exec_stage_event_id_desc',
      'idx_event_exec_frame_event_id_desc',
    ]) {
      await queryRunner.query(`DROP INDEX noetl.${index}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX idx_event_execution ON noetl.event (execution_id, event_id)`);
    await queryRunner.query(`CREATE INDEX idx_event_execution_type ON noetl.event (execution_id, event_type)`);
    await queryRunner.query(
      `CREATE INDEX idx_event_exec_stage_event_id_desc ON noetl.event (execution_id, stage_id, event_id DESC) WHERE stage_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX idx_event_exec_frame_event_id_desc ON noetl.event (execution_id, frame_id, event_id DESC) WHERE frame_id IS NOT NULL`,
    );
    await queryRunner.query(`ALTER TABLE noetl.frame DROP COLUMN heartbeat_at`);
    await queryRunner.query(`ALTER TABLE noetl.command DROP COLUMN heartbeat_at`);
  }
}
