import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Worker pools that route (issue 27 item 6): a command row and a stage row
 * name the pool their work was issued to (`spec.pool` of its
 * `command.issued` / loop body; null: no pool). The frame claim checks the
 * stage's; the registry counts each pool's backlog by them. Derived, like
 * the rest of the rows: the ledger keeps the spec.
 */
export class WorkPools1796400000100 implements MigrationInterface {
  readonly name = 'WorkPools1796400000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.command ADD COLUMN pool TEXT`);
    await queryRunner.query(`ALTER TABLE noetl.stage ADD COLUMN pool TEXT`);
    // The backlog per pool (GET /api/workers/pools, the backlog gauge): waiting commands, by tenant and pool.
    await queryRunner.query(
      `CREATE INDEX idx_command_issued_pool ON noetl.command (tenant_id, organization_id, pool) WHERE status = 'ISSUED'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS noetl.idx_command_issued_pool`);
    await queryRunner.query(`ALTER TABLE noetl.stage DROP COLUMN pool`);
    await queryRunner.query(`ALTER TABLE noetl.command DROP COLUMN pool`);
  }
}
