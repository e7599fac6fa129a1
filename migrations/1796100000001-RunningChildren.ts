import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sweep's check for running children of ended parents reads the running
 * children only (issue 12): from the tenant's executions it read every one,
 * running or not, each sweep.
 */
export class RunningChildren1796100000001 implements MigrationInterface {
  readonly name = 'RunningChildren1796100000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX idx_execution_running_child ON noetl.execution (parent_execution_id) WHERE status = 'RUNNING' AND parent_execution_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS noetl.idx_execution_running_child`);
  }
}
