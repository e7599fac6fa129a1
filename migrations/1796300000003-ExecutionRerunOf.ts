import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An execution row names the execution it re-runs (issue 26 item 4), copied
 * from its `execution.started` (`rerun_of`), so the original's view lists its
 * reruns by an index instead of a search of the ledger. Derived, like the
 * rest of the row: the ledger keeps the link.
 */
export class ExecutionRerunOf1796300000003 implements MigrationInterface {
  readonly name = 'ExecutionRerunOf1796300000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.execution ADD COLUMN rerun_of_execution_id BIGINT`);
    await queryRunner.query(
      `CREATE INDEX idx_execution_rerun_of ON noetl.execution (rerun_of_execution_id) WHERE rerun_of_execution_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS noetl.idx_execution_rerun_of`);
    await queryRunner.query(`ALTER TABLE noetl.execution DROP COLUMN rerun_of_execution_id`);
  }
}
