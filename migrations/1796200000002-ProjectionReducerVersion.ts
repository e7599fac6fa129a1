import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A projection row records the reducer that folded it (REDUCER_VERSION), as
 * snapshots always have. A row folded by another reducer reads as absent:
 * readers fold that execution from its ledger, and the projector writes the
 * row again, at the same version, on the execution's next event (or all at
 * once: `noetl projector rebuild`). Rows before this migration were folded
 * by reducer 2; reducer 3 keeps a terminal frame as its row count and its
 * failed rows (issue 23 item 6) where 2 kept an object per row.
 */
export class ProjectionReducerVersion1796200000002 implements MigrationInterface {
  readonly name = 'ProjectionReducerVersion1796200000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.projection ADD COLUMN reducer_version TEXT NOT NULL DEFAULT '2'`);
    // Every write names its reducer from now on.
    await queryRunner.query(`ALTER TABLE noetl.projection ALTER COLUMN reducer_version DROP DEFAULT`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Reducer 2 would read a later reducer's row as its own: those rows go, and are folded again from the ledger.
    await queryRunner.query(`DELETE FROM noetl.projection WHERE reducer_version <> '2'`);
    await queryRunner.query(`ALTER TABLE noetl.projection DROP COLUMN reducer_version`);
  }
}
