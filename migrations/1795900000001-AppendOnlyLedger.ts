import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ledger is append-only in the database, not by convention (issue 11
 * item 4, DESIGN.md invariant 1). Triggers refuse every UPDATE, DELETE and
 * TRUNCATE of `noetl.event`, for every role, its owner and superusers
 * included (a trigger does not ask who runs the statement); only DDL by the
 * owner (dropping the trigger) gets past it, which is what the roles below
 * keep from the runtime.
 *
 * Retention is the one way events leave: `noetl.purge_execution(id)`, run
 * inside a transaction that has just appended an `admin.action` with
 * `action: 'purge'` for that execution (the runtime's AdminService.purge:
 * who, when, why). It deletes the ended execution's events except its
 * `execution.started`, its terminal event and its `admin.action` events
 * (what ran, how it ended, who purged it, stay), and the rows derived from
 * the deleted events (commands, frames, stages, timers, outbox rows,
 * projection and snapshots; the projection folds again from what is left).
 * The trigger admits a DELETE only there: beside an audit of this very
 * transaction, never of a kept event, never of an audit.
 *
 * Database roles a deployment should grant (no superuser anywhere):
 *
 *   -- owns schema noetl and runs the migrations (the migration Job's DATABASE_URL,
 *   -- or a login role that is a member of it and runs `SET ROLE noetl_owner`)
 *   CREATE ROLE noetl_owner LOGIN PASSWORD '...';
 *   CREATE SCHEMA noetl AUTHORIZATION noetl_owner;   -- before the first migration
 *   GRANT CREATE ON SCHEMA public TO noetl_owner;      -- the migrations table, public.noetl_migrations
 *
 *   -- the runtime (every role's DATABASE_URL): data, never DDL
 *   CREATE ROLE noetl_app LOGIN PASSWORD '...';
 *   GRANT USAGE ON SCHEMA noetl TO noetl_app;
 *   GRANT SELECT ON public.noetl_migrations TO noetl_app;  -- the boot's "anything pending?" check
 *   GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA noetl TO noetl_app;
 *   REVOKE UPDATE, TRUNCATE ON noetl.event FROM noetl_app;  -- DELETE stays for retention; the trigger guards it
 *   GRANT USAGE ON ALL SEQUENCES IN SCHEMA noetl TO noetl_app;
 *   ALTER DEFAULT PRIVILEGES FOR ROLE noetl_owner IN SCHEMA noetl
 *     GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO noetl_app;
 *   ALTER DEFAULT PRIVILEGES FOR ROLE noetl_owner IN SCHEMA noetl GRANT USAGE ON SEQUENCES TO noetl_app;
 */
export class AppendOnlyLedger1795900000001 implements MigrationInterface {
  readonly name = 'AppendOnlyLedger1795900000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Whether this transaction appended the purge audit of `execution`: what admits a DELETE.
    await queryRunner.query(`CREATE FUNCTION noetl.purge_audited(execution BIGINT) RETURNS boolean LANGUAGE sql STABLE AS $$
      SELECT EXISTS (
        SELECT 1 FROM noetl.event
         WHERE execution_id = execution AND event_type = 'admin.action' AND payload->>'action' = 'purge'
           AND xmin = pg_current_xact_id()::xid)
    $$`);
    await queryRunner.query(`CREATE FUNCTION noetl.refuse_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE'
           AND OLD.event_type NOT IN ('execution.started', 'execution.completed', 'execution.failed', 'execution.cancelled', 'admin.action')
           AND noetl.purge_audited(OLD.execution_id) THEN
          RETURN OLD;
        END IF;
        RAISE EXCEPTION 'noetl.event is append-only: % refused', TG_OP
          USING ERRCODE = 'insufficient_privilege',
                HINT = 'events leave the ledger only through noetl.purge_execution, beside an admin.action purge audit of the same transaction';
      END $$`);
    await queryRunner.query(`CREATE TRIGGER event_append_only BEFORE UPDATE OR DELETE ON noetl.event
      FOR EACH ROW EXECUTE FUNCTION noetl.refuse_event_change()`);
    await queryRunner.query(`CREATE TRIGGER event_no_truncate BEFORE TRUNCATE ON noetl.event
      FOR EACH STATEMENT EXECUTE FUNCTION noetl.refuse_event_change()`);
    await queryRunner.query(`CREATE FUNCTION noetl.purge_execution(execution BIGINT) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        purged integer;
      BEGIN
        IF NOT noetl.purge_audited(execution) THEN
          RAISE EXCEPTION 'purge of execution % needs its admin.action purge audit in the same transaction', execution
            USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF NOT EXISTS (SELECT 1 FROM noetl.event WHERE execution_id = execution
                        AND event_type IN ('execution.completed', 'execution.failed', 'execution.cancelled')) THEN
          RAISE EXCEPTION 'execution % has not ended: only an ended execution is purged', execution
            USING ERRCODE = 'object_not_in_prerequisite_state';
        END IF;
        DELETE FROM noetl.outbox o USING noetl.event e
         WHERE e.execution_id = execution AND o.event_id = e.event_id
           AND e.event_type NOT IN ('execution.started', 'execution.completed', 'execution.failed', 'execution.cancelled', 'admin.action');
        DELETE FROM noetl.event
         WHERE execution_id = execution
           AND event_type NOT IN ('execution.started', 'execution.completed', 'execution.failed', 'execution.cancelled', 'admin.action');
        GET DIAGNOSTICS purged = ROW_COUNT;
        DELETE FROM noetl.frame WHERE execution_id = execution;
        DELETE FROM noetl.stage WHERE execution_id = execution;
        DELETE FROM noetl.command WHERE execution_id = execution;
        DELETE FROM noetl.timer WHERE execution_id = execution;
        DELETE FROM noetl.projection_snapshot WHERE aggregate_type = 'execution' AND aggregate_id = execution::text;
        DELETE FROM noetl.projection WHERE execution_id = execution;
        RETURN purged;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION IF EXISTS noetl.purge_execution(BIGINT)`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS event_no_truncate ON noetl.event`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS event_append_only ON noetl.event`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS noetl.refuse_event_change()`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS noetl.purge_audited(BIGINT)`);
  }
}
