import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sweep reads a bounded page, not every open row (issue 12): with 1,000
 * executions running, each sweep read every running execution and every
 * unclaimed command, ~90 rows per step. The running-scope index gains the
 * execution id, so the backlog check pages through a tenant's running
 * executions in id order (keyset) and the scope list skips from one tenant
 * to the next; the unclaimed-command index is ordered by when each was last
 * offered, so the re-offer reads only the commands due again.
 */
export class SweepIndexes1796100000000 implements MigrationInterface {
  readonly name = 'SweepIndexes1796100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX noetl.idx_execution_running_scope`);
    await queryRunner.query(
      `CREATE INDEX idx_execution_running_scope ON noetl.execution (tenant_id, organization_id, execution_id) WHERE status = 'RUNNING'`,
    );
    await queryRunner.query(`DROP INDEX noetl.idx_command_unclaimed`);
    await queryRunner.query(`CREATE INDEX idx_command_unclaimed ON noetl.command (notified_at) WHERE status = 'ISSUED'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX noetl.idx_command_unclaimed`);
    await queryRunner.query(`CREATE INDEX idx_command_unclaimed ON noetl.command (created_at) WHERE status = 'ISSUED'`);
    await queryRunner.query(`DROP INDEX noetl.idx_execution_running_scope`);
    await queryRunner.query(
      `CREATE INDEX idx_execution_running_scope ON noetl.execution (tenant_id, organization_id) WHERE status = 'RUNNING'`,
    );
  }
}
