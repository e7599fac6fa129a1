import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A worker id names a worker within its tenant and organization (issue 25
 * item 8). With one id space for all tenants, a worker reporting an id that
 * another tenant's worker held was refused, which told it that the id
 * exists there: an existence oracle across tenants. Now each tenant has its
 * own ids, and every statement on the table is scoped already.
 */
export class WorkerIdPerTenant1796300000000 implements MigrationInterface {
  readonly name = 'WorkerIdPerTenant1796300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.worker DROP CONSTRAINT worker_pkey`);
    await queryRunner.query(`ALTER TABLE noetl.worker ADD PRIMARY KEY (tenant_id, organization_id, worker_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // One id space again: of the rows sharing an id, the one heard from last stays (the registry is rebuilt by the next reports).
    await queryRunner.query(`DELETE FROM noetl.worker w USING noetl.worker newer
      WHERE w.worker_id = newer.worker_id AND (w.heartbeat_at, w.tenant_id, w.organization_id) < (newer.heartbeat_at, newer.tenant_id, newer.organization_id)`);
    await queryRunner.query(`ALTER TABLE noetl.worker DROP CONSTRAINT worker_pkey`);
    await queryRunner.query(`ALTER TABLE noetl.worker ADD PRIMARY KEY (worker_id)`);
  }
}
