import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * idx_execution_tenant_path served no query (the list's path filter is
 * `$4 IS NULL OR path = $4`, no index condition), but on a table not
 * analysed yet the planner took it for any tenant filter and read the
 * tenant's every execution: the sweep's page of running executions did so
 * each sweep (issue 12). Without it that page is read from
 * idx_execution_running_scope, and an execution insert writes one index less.
 */
export class DropExecutionTenantPath1796100000002 implements MigrationInterface {
  readonly name = 'DropExecutionTenantPath1796100000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX noetl.idx_execution_tenant_path`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX idx_execution_tenant_path ON noetl.execution (tenant_id, organization_id, path)`);
  }
}
