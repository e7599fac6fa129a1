import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A start by path that sends no read of the catalog (CatalogService.resolve
 * with `expectLatest`): the process keeps the latest row of each path it
 * read, and the start's transaction checks, in its one message, that the
 * row is still the path's latest, behind this guard. When a newer version
 * was registered since (here or by another process), it raises SQLSTATE
 * P0N02, the start rolls back and goes again with a read of the catalog.
 * Catalog rows are never changed once written, so the row itself needs no
 * other check.
 */
export class ExpectedCatalog1796600000001 implements MigrationInterface {
  readonly name = 'ExpectedCatalog1796600000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION noetl.expect_latest_playbook(
        p_tenant_id TEXT, p_organization_id TEXT, p_path TEXT, p_version INT
      ) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM noetl.catalog c
                    WHERE c.tenant_id = p_tenant_id AND c.organization_id = p_organization_id AND c.path = p_path
                      AND c.version > p_version) THEN
          RAISE EXCEPTION 'playbook % has a version newer than %', p_path, p_version USING ERRCODE = 'P0N02';
        END IF;
      END
    $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION noetl.expect_latest_playbook(TEXT, TEXT, TEXT, INT)`);
  }
}
