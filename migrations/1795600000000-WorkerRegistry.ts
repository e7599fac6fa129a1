import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The workers a deployment runs (seed 001 P4.2-P4.3): each worker reports
 * its capacity (slots, free slots, the tool kinds it runs, its pool, its
 * node) when it starts, on a heartbeat and when it stops. The scheduler
 * offers work to a worker with free slots for the command's tool kinds; the
 * API lists them. Not derived from the ledger and not needed for
 * correctness: a lost row only means an offer goes to the broadcast subject.
 * A stage keeps the tool kinds its loop body runs, so that its frames are
 * offered to (and claimed by) workers that run them.
 */
export class WorkerRegistry1795600000000 implements MigrationInterface {
  readonly name = 'WorkerRegistry1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE noetl.worker (
      worker_id       TEXT PRIMARY KEY,
      tenant_id       TEXT NOT NULL,
      organization_id TEXT NOT NULL,
      node            TEXT NOT NULL,
      pool            TEXT,
      tools           TEXT[],
      slots           INT NOT NULL CHECK (slots > 0),
      free_slots      INT NOT NULL CHECK (free_slots >= 0),
      status          TEXT NOT NULL CHECK (status IN ('ACTIVE', 'DRAINING', 'STOPPED')),
      started_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
      heartbeat_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
      stopped_at      TIMESTAMPTZ
    )`);
    await queryRunner.query(`CREATE INDEX idx_worker_tenant_heartbeat ON noetl.worker (tenant_id, organization_id, heartbeat_at DESC)`);
    await queryRunner.query(`ALTER TABLE noetl.stage ADD COLUMN tools TEXT[] NOT NULL DEFAULT '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.stage DROP COLUMN IF EXISTS tools`);
    await queryRunner.query(`DROP TABLE IF EXISTS noetl.worker`);
  }
}
