import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One deployment, many tenants (issue 11). API keys, each bound to a tenant
 * and organization and one role: the secret part of a key is shown once,
 * when it is created, and kept only as its sha256 (a 256-bit random secret
 * needs no slow hash: nothing can be guessed from its digest); a revoked key
 * stays, for the audit of what it did. The tenants the deployment has run
 * executions for (a projector consumes each one's events). And the index the
 * sweep finds the tenants with running executions by.
 */
export class Tenancy1796000000000 implements MigrationInterface {
  readonly name = 'Tenancy1796000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE noetl.api_key (
      key_id          TEXT PRIMARY KEY CHECK (key_id ~ '^[0-9a-f]{16}$'),
      tenant_id       TEXT NOT NULL,
      organization_id TEXT NOT NULL,
      role            TEXT NOT NULL CHECK (role IN ('admin', 'operator', 'developer', 'viewer', 'worker')),
      name            TEXT NOT NULL,
      secret_sha256   BYTEA NOT NULL CHECK (length(secret_sha256) = 32),
      created_by      TEXT,
      created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
      last_used_at    TIMESTAMPTZ,
      revoked_at      TIMESTAMPTZ
    )`);
    await queryRunner.query(`CREATE INDEX idx_api_key_tenant ON noetl.api_key (tenant_id, organization_id, created_at)`);
    await queryRunner.query(`CREATE TABLE noetl.tenant (
      tenant_id       TEXT NOT NULL,
      organization_id TEXT NOT NULL,
      first_seen_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, organization_id)
    )`);
    await queryRunner.query(
      `INSERT INTO noetl.tenant (tenant_id, organization_id) SELECT DISTINCT tenant_id, organization_id FROM noetl.execution`,
    );
    await queryRunner.query(
      `CREATE INDEX idx_execution_running_scope ON noetl.execution (tenant_id, organization_id) WHERE status = 'RUNNING'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS noetl.idx_execution_running_scope`);
    await queryRunner.query(`DROP TABLE IF EXISTS noetl.tenant`);
    await queryRunner.query(`DROP TABLE IF EXISTS noetl.api_key`);
  }
}
