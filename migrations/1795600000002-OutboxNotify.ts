import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Wakes the outbox relay when events commit (issue 10): each statement that
 * inserts outbox rows notifies `noetl_outbox`, delivered at COMMIT (never for
 * a rolled-back append), and identical notifications of one transaction are
 * folded into one. The relay LISTENs, so it drains without tight polling; its
 * slow poll is the safety net. Also an index for the retention of published rows.
 */
export class OutboxNotify1795600000002 implements MigrationInterface {
  readonly name = 'OutboxNotify1795600000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION noetl.notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('noetl_outbox', '');
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER outbox_notify AFTER INSERT ON noetl.outbox FOR EACH STATEMENT EXECUTE FUNCTION noetl.notify_outbox()`,
    );
    await queryRunner.query(`CREATE INDEX idx_outbox_published ON noetl.outbox (published_at) WHERE published_at IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS noetl.idx_outbox_published`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS outbox_notify ON noetl.outbox`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS noetl.notify_outbox()`);
  }
}
