import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A catalog row keeps the playbook's parsed model beside its YAML, so a
 * process's first start of a version reads it as JSON instead of parsing
 * the YAML again (a 100-step playbook's YAML takes 60-175 ms to parse).
 * `model_format` is the PLAYBOOK_MODEL_FORMAT it was written at: a row of
 * another format (or one registered before this migration, NULL) is parsed
 * from `content` as before. `json`, not `jsonb`: the model's key order is
 * kept as written.
 */
export class CatalogModel1796500000000 implements MigrationInterface {
  readonly name = 'CatalogModel1796500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.catalog ADD COLUMN model JSON, ADD COLUMN model_format INT`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE noetl.catalog DROP COLUMN model_format, DROP COLUMN model`);
  }
}
