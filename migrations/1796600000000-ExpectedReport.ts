import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A report that sends no read (LocalControlPlane.finish): when this process
 * holds the execution's state at its stream's head and the command running
 * for the reporting worker, the report and the plan it leads to are written
 * from that state, in one message with the lock, BEGIN and COMMIT, behind
 * this guard. Under the execution's stream lock (taken just before it), the
 * guard locks the command row and checks what a report's read would have:
 * the row is the worker's (its id, its lease token's hash, CLAIMED or
 * RUNNING), and nothing was appended to the stream since the state the
 * report was planned from. When either is not so it raises SQLSTATE P0N01,
 * the transaction rolls back, and the report goes again the usual way (a
 * read of the row under the lock); no event of a refused report is kept.
 */
export class ExpectedReport1796600000000 implements MigrationInterface {
  readonly name = 'ExpectedReport1796600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION noetl.expect_report(
        p_command_id BIGINT, p_execution_id BIGINT, p_tenant_id TEXT, p_organization_id TEXT,
        p_worker_id TEXT, p_lease_token TEXT, p_stream_id TEXT, p_stream_head INT
      ) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM noetl.command c
         WHERE c.command_id = p_command_id AND c.execution_id = p_execution_id
           AND c.tenant_id = p_tenant_id AND c.organization_id = p_organization_id
           AND c.status IN ('CLAIMED', 'RUNNING') AND c.worker_id = p_worker_id AND c.lease_token = p_lease_token
           FOR UPDATE OF c;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'command % is not held by worker % as its report expected', p_command_id, p_worker_id USING ERRCODE = 'P0N01';
        END IF;
        IF COALESCE((SELECT e.stream_version FROM noetl.event e WHERE e.stream_id = p_stream_id ORDER BY e.stream_version DESC LIMIT 1), 0)
           <> p_stream_head THEN
          RAISE EXCEPTION 'stream % moved past version % before the report of command %', p_stream_id, p_stream_head, p_command_id
            USING ERRCODE = 'P0N01';
        END IF;
      END
    $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION noetl.expect_report(BIGINT, BIGINT, TEXT, TEXT, TEXT, TEXT, TEXT, INT)`);
  }
}
