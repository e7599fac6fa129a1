import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A frame whose execution ended before it ran is CANCELLED (issue 15 defect
 * 8): the end of an execution closes its open stages and cancels their open
 * frames in one statement each, so a cancelled 1,000,000-item loop leaves no
 * PENDING frame and no open stage behind.
 */
export class FrameCancelled1795900000002 implements MigrationInterface {
  readonly name = 'FrameCancelled1795900000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.frame DROP CONSTRAINT frame_status_check`);
    await queryRunner.query(`ALTER TABLE noetl.frame ADD CONSTRAINT frame_status_check
      CHECK (status IN ('PENDING', 'CLAIMED', 'RUNNING', 'COMMITTED', 'FAILED', 'CANCELLED'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE noetl.frame SET status = 'FAILED' WHERE status = 'CANCELLED'`);
    await queryRunner.query(`ALTER TABLE noetl.frame DROP CONSTRAINT frame_status_check`);
    await queryRunner.query(`ALTER TABLE noetl.frame ADD CONSTRAINT frame_status_check
      CHECK (status IN ('PENDING', 'CLAIMED', 'RUNNING', 'COMMITTED', 'FAILED'))`);
  }
}
