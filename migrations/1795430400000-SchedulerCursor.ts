import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The scheduler's cursor: the execution stream version up to which its events
 * were planned. Resuming after a crash plans exactly the events after it; the
 * planner's idempotency keys make a replanned event a no-op anyway.
 */
export class SchedulerCursor1795430400000 implements MigrationInterface {
  readonly name = 'SchedulerCursor1795430400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.execution ADD COLUMN planned_version INT NOT NULL DEFAULT 0`);
    await queryRunner.query(`CREATE INDEX idx_execution_running ON noetl.execution (execution_id) WHERE status = 'RUNNING'`);
    await queryRunner.query(
      `CREATE INDEX idx_execution_parent_command ON noetl.execution (parent_command_id) WHERE parent_command_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS noetl.idx_execution_parent_command`);
    await queryRunner.query(`DROP INDEX IF EXISTS noetl.idx_execution_running`);
    await queryRunner.query(`ALTER TABLE noetl.execution DROP COLUMN IF EXISTS planned_version`);
  }
}
