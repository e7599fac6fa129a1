import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A claim that sends no read (ExpectedWrites.claim), as a report does
 * (migration ExpectedReport): when this process issued the command and
 * holds its execution's state at the stream's head with the command still
 * issued, the claim and its plan go in one message behind this guard. Under
 * the stream lock it locks the command row and checks it is still ISSUED
 * and that nothing was appended to the stream since; otherwise it raises
 * SQLSTATE P0N01, the claim rolls back and goes again with a read of the
 * row under the lock.
 */
export class ExpectedClaim1796600000002 implements MigrationInterface {
  readonly name = 'ExpectedClaim1796600000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION noetl.expect_claim(
        p_command_id BIGINT, p_execution_id BIGINT, p_tenant_id TEXT, p_organization_id TEXT, p_stream_id TEXT, p_stream_head INT
      ) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM noetl.command c
         WHERE c.command_id = p_command_id AND c.execution_id = p_execution_id
           AND c.tenant_id = p_tenant_id AND c.organization_id = p_organization_id AND c.status = 'ISSUED'
           FOR UPDATE OF c;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'command % is not waiting for a claim as its claim expected', p_command_id USING ERRCODE = 'P0N01';
        END IF;
        IF COALESCE((SELECT e.stream_version FROM noetl.event e WHERE e.stream_id = p_stream_id ORDER BY e.stream_version DESC LIMIT 1), 0)
           <> p_stream_head THEN
          RAISE EXCEPTION 'stream % moved past version % before the claim of command %', p_stream_id, p_stream_head, p_command_id
            USING ERRCODE = 'P0N01';
        END IF;
      END
    $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION noetl.expect_claim(BIGINT, BIGINT, TEXT, TEXT, TEXT, INT)`);
  }
}
