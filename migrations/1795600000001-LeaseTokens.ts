import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A lease is proven by a secret only its claimer received (issue 15): the
 * claim returns a random token and the row keeps its sha256; every report,
 * heartbeat and credential request must present it. A worker id alone is
 * public (it is in the events) and proves nothing. A stage keeps the
 * credential names its loop body may resolve (NULL: a name is a template,
 * rendered at the worker, so any of the tenant's).
 */
export class LeaseTokens1795600000001 implements MigrationInterface {
  readonly name = 'LeaseTokens1795600000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.command ADD COLUMN lease_token TEXT`);
    await queryRunner.query(`ALTER TABLE noetl.frame ADD COLUMN lease_token TEXT`);
    await queryRunner.query(`ALTER TABLE noetl.stage ADD COLUMN credentials TEXT[] DEFAULT '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.stage DROP COLUMN IF EXISTS credentials`);
    await queryRunner.query(`ALTER TABLE noetl.frame DROP COLUMN IF EXISTS lease_token`);
    await queryRunner.query(`ALTER TABLE noetl.command DROP COLUMN IF EXISTS lease_token`);
  }
}
