import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The runtime role, made by default (issue 25 item 1): `noetl_app` may read
 * and write the rows of schema `noetl` and nothing more: no DDL, no
 * superuser, no CREATEROLE, no replication, so it cannot set
 * `session_replication_role` nor drop the ledger's triggers; no UPDATE or
 * TRUNCATE of `noetl.event` (DELETE stays for retention, which the trigger
 * guards). The runtime's pool works as it (`NOETL_DB_RUNTIME_ROLE`): a login
 * that may become it connects with `role=noetl_app`, so a server given the
 * superuser's URL (the embedded PostgreSQL, a developer's local cluster)
 * still writes the ledger without power over it.
 *
 * The owner is the login that migrates: it owns what the migrations create
 * and keeps running them (compose and Kubernetes migrate as `noetl_owner`,
 * made by docker/postgres-init.sh).
 *
 * Roles belong to the cluster, not the database: the role is made when
 * missing (NOLOGIN: only `SET ROLE` from a login that may reaches it; a
 * deployment that wants it to log in gives it LOGIN and a password), and a
 * login that may not create roles skips that step and the grants, without
 * failing the migration: the server then logs at every start that its
 * connection can bypass the ledger's triggers, and why.
 */
export class RuntimeRole1796400000000 implements MigrationInterface {
  readonly name = 'RuntimeRole1796400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Two databases of one cluster migrating at once both find the role missing: the loser's
    // CREATE meets the winner's row (unique_violation) or name (duplicate_object), and carries on.
    await queryRunner.query(`DO $$
      BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'noetl_app') THEN
          CREATE ROLE noetl_app NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
        END IF;
        IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
          GRANT noetl_app TO CURRENT_USER;
        END IF;
      EXCEPTION
        WHEN unique_violation OR duplicate_object THEN NULL;
        WHEN insufficient_privilege THEN
          RAISE WARNING 'noetl: the role % may not create or grant noetl_app; the runtime keeps its login''s role', current_user;
      END $$`);
    await queryRunner.query(`DO $$
      BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'noetl_app') THEN RETURN; END IF;
        GRANT USAGE ON SCHEMA noetl TO noetl_app;
        GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA noetl TO noetl_app;
        REVOKE UPDATE, TRUNCATE ON noetl.event FROM noetl_app;
        GRANT USAGE ON ALL SEQUENCES IN SCHEMA noetl TO noetl_app;
        GRANT SELECT ON public.noetl_migrations TO noetl_app;
        -- Tables and sequences that later migrations (run by this login) create.
        ALTER DEFAULT PRIVILEGES IN SCHEMA noetl GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO noetl_app;
        ALTER DEFAULT PRIVILEGES IN SCHEMA noetl GRANT USAGE ON SEQUENCES TO noetl_app;
      EXCEPTION
        WHEN insufficient_privilege THEN
          RAISE WARNING 'noetl: the role % may not grant noetl_app its rights on schema noetl', current_user;
      END $$`);
  }

  /** Takes back this database's grants; the role stays, since other databases of the cluster may use it. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DO $$
      BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'noetl_app') THEN RETURN; END IF;
        ALTER DEFAULT PRIVILEGES IN SCHEMA noetl REVOKE USAGE ON SEQUENCES FROM noetl_app;
        ALTER DEFAULT PRIVILEGES IN SCHEMA noetl REVOKE SELECT, INSERT, UPDATE, DELETE ON TABLES FROM noetl_app;
        REVOKE SELECT ON public.noetl_migrations FROM noetl_app;
        REVOKE ALL ON ALL SEQUENCES IN SCHEMA noetl FROM noetl_app;
        REVOKE ALL ON ALL TABLES IN SCHEMA noetl FROM noetl_app;
        REVOKE USAGE ON SCHEMA noetl FROM noetl_app;
      EXCEPTION
        WHEN insufficient_privilege THEN NULL;
      END $$`);
  }
}
