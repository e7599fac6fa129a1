import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Leadership by lease (issue 15 defect 5): a role that one process of a
 * tenant runs at a time (the sweeper) holds a row here and renews it on every
 * round, one statement each, never a transaction held open. A holder that
 * stops answering (killed, SIGSTOPped, cut off) stops renewing, and another
 * process takes the row once `lease_until` passes, by the database's clock.
 * (A transaction-scoped advisory lock held for a whole sweep stayed with a
 * stopped process for as long as it was stopped.) Not derived from the
 * ledger and not needed for correctness: what a leader does is idempotent.
 */
export class Leadership1795900000000 implements MigrationInterface {
  readonly name = 'Leadership1795900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE noetl.leadership (
      role        TEXT PRIMARY KEY,
      holder      TEXT NOT NULL,
      lease_until TIMESTAMPTZ NOT NULL,
      since       TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS noetl.leadership`);
  }
}
