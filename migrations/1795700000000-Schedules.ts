import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Schedules (DESIGN.md s6 `/api/schedules`): a playbook started on a cron
 * expression (in a time zone) or an interval. The row holds the schedule and
 * its durable fire state: the next fire time and when it is due (its jitter
 * added), a fire time held by `buffer_one`, the last execution it started
 * (for the overlap policy) and counters. A scheduler fires a due schedule
 * under the row's lock, advancing the fire state in the transaction that
 * appends the executions' `execution.started` (idempotency key
 * `schedule:<id>:<fire time>`), so a fire time starts at most one execution
 * whatever processes race or die. `source = 'playbook'` rows come from a
 * playbook's `metadata.schedule`: one per path.
 */
export class Schedules1795700000000 implements MigrationInterface {
  readonly name = 'Schedules1795700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE noetl.schedule (
      schedule_id       BIGINT PRIMARY KEY,
      tenant_id         TEXT NOT NULL,
      organization_id   TEXT NOT NULL,
      path              TEXT NOT NULL,
      version           INT CHECK (version > 0),
      source            TEXT NOT NULL CHECK (source IN ('api', 'playbook')),
      cron              TEXT,
      timezone          TEXT,
      interval_seconds  INT CHECK (interval_seconds > 0),
      payload           JSONB NOT NULL DEFAULT '{}',
      overlap           TEXT NOT NULL CHECK (overlap IN ('skip', 'buffer_one', 'allow')),
      catchup_seconds   INT NOT NULL CHECK (catchup_seconds >= 0),
      jitter_seconds    INT NOT NULL DEFAULT 0 CHECK (jitter_seconds >= 0),
      paused            BOOLEAN NOT NULL DEFAULT false,
      next_fire_at      TIMESTAMPTZ NOT NULL,
      next_due_at       TIMESTAMPTZ NOT NULL,
      buffered_fire_at  TIMESTAMPTZ,
      last_fire_at      TIMESTAMPTZ,
      last_execution_id BIGINT,
      last_missed_at    TIMESTAMPTZ,
      fire_count        BIGINT NOT NULL DEFAULT 0,
      skip_count        BIGINT NOT NULL DEFAULT 0,
      created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
      CONSTRAINT ck_schedule_timing CHECK ((cron IS NULL) <> (interval_seconds IS NULL))
    )`);
    await queryRunner.query(`CREATE INDEX idx_schedule_due ON noetl.schedule (tenant_id, organization_id, next_due_at) WHERE NOT paused`);
    await queryRunner.query(
      `CREATE INDEX idx_schedule_buffered ON noetl.schedule (tenant_id, organization_id) WHERE buffered_fire_at IS NOT NULL AND NOT paused`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX uq_schedule_declared ON noetl.schedule (tenant_id, organization_id, path) WHERE source = 'playbook'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS noetl.schedule`);
  }
}
