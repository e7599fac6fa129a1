import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What claiming frames needs on the stage row (DESIGN.md "Loops are stages
 * of frames"): the loop's mode and its in-flight bound, the collection size,
 * and when frames of the stage were last offered to workers (the sweeper
 * offers them again when nobody took them).
 */
export class StageScheduling1795516800000 implements MigrationInterface {
  readonly name = 'StageScheduling1795516800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.stage
      ADD COLUMN mode TEXT NOT NULL DEFAULT 'sequential' CHECK (mode IN ('sequential', 'parallel', 'cursor')),
      ADD COLUMN max_in_flight INT NOT NULL DEFAULT 1 CHECK (max_in_flight > 0),
      ADD COLUMN size INT,
      ADD COLUMN notified_at TIMESTAMPTZ`);
    await queryRunner.query(`CREATE INDEX idx_stage_open ON noetl.stage (notified_at) WHERE status = 'OPEN'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS noetl.idx_stage_open`);
    await queryRunner.query(
      `ALTER TABLE noetl.stage DROP COLUMN notified_at, DROP COLUMN size, DROP COLUMN max_in_flight, DROP COLUMN mode`,
    );
  }
}
