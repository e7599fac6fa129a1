import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Credentials bound to playbooks (issue 25 item 6): a credential may list
 * the catalog paths (globs) whose executions may use it (NULL: any); a
 * tenant may require every credential to be bound; every use is audited.
 */
export class CredentialBinding1796300000002 implements MigrationInterface {
  readonly name = 'CredentialBinding1796300000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.credential ADD COLUMN allowed_paths TEXT[]`);
    await queryRunner.query(`CREATE TABLE noetl.tenant_setting (
      tenant_id                   TEXT NOT NULL,
      organization_id             TEXT NOT NULL,
      credentials_require_binding BOOLEAN NOT NULL DEFAULT false,
      updated_at                  TIMESTAMPTZ NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, organization_id)
    )`);
    // Append-only by use: a row per credential handed to a worker, whoever asked.
    await queryRunner.query(`CREATE TABLE noetl.credential_use (
      use_id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      tenant_id       TEXT NOT NULL,
      organization_id TEXT NOT NULL,
      name            TEXT NOT NULL,
      execution_id    BIGINT NOT NULL,
      path            TEXT NOT NULL,
      step            TEXT,
      holder_kind     TEXT NOT NULL CHECK (holder_kind IN ('command', 'frame')),
      holder_id       BIGINT NOT NULL,
      worker_id       TEXT NOT NULL,
      used_at         TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
    await queryRunner.query(`CREATE INDEX idx_credential_use_name ON noetl.credential_use (tenant_id, organization_id, name, use_id DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE noetl.credential_use`);
    await queryRunner.query(`DROP TABLE noetl.tenant_setting`);
    await queryRunner.query(`ALTER TABLE noetl.credential DROP COLUMN allowed_paths`);
  }
}
