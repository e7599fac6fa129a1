import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A tamper-evident ledger (issue 25 item 3): each event's `chain_hash` is
 * sha256(the previous event of its stream's chain_hash || its own checksum),
 * seeded per stream with sha256(stream_id). The database writes it in the
 * insert itself (a BEFORE INSERT trigger reads the previous version's row,
 * one probe of uidx_event_stream_version), so every path that appends (one
 * by one, batched, deferred) chains alike and no writer can leave it out.
 * A row inserted earlier in the same statement is visible to the trigger,
 * so a batch chains within itself.
 *
 * `noetl verify` recomputes each event's checksum from its content (an
 * edit) and each link (an event removed, added or reordered). Events
 * appended before this migration have no chain_hash and are checked by their
 * checksum only; a stream's chain starts again at its first later event.
 */
export class EventHashChain1796300000001 implements MigrationInterface {
  readonly name = 'EventHashChain1796300000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.event ADD COLUMN chain_hash BYTEA`);
    await queryRunner.query(`CREATE FUNCTION noetl.chain_event() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        previous BYTEA;
      BEGIN
        SELECT e.chain_hash INTO previous FROM noetl.event e
         WHERE e.stream_id = NEW.stream_id AND e.stream_version = NEW.stream_version - 1;
        NEW.chain_hash := sha256(COALESCE(previous, sha256(convert_to(NEW.stream_id, 'UTF8'))) || convert_to(NEW.checksum, 'UTF8'));
        RETURN NEW;
      END
    $$`);
    await queryRunner.query(
      `CREATE TRIGGER event_hash_chain BEFORE INSERT ON noetl.event FOR EACH ROW EXECUTE FUNCTION noetl.chain_event()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER event_hash_chain ON noetl.event`);
    await queryRunner.query(`DROP FUNCTION noetl.chain_event()`);
    // DDL, not an UPDATE: the append-only trigger does not stand in its way.
    await queryRunner.query(`ALTER TABLE noetl.event DROP COLUMN chain_hash`);
  }
}
