import { EventType } from '@noetl/event-kernel';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { SqlState, sqlStateOf } from '@noetl/storage';
import { withAdminClient } from '../../../../test/support/postgres';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';

const PLAYBOOK = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: retention, path: tests/retention}
workflow:
  - step: first
    tool: {kind: noop, input: {n: 1}}
    next: second
  - step: second
    tool: {kind: noop, input: {n: 2}}
`;
const WAITING = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: retention_wait, path: tests/retention_wait}
workflow:
  - step: nap
    tool: {kind: sleep, seconds: 600}
`;
const KEPT = [EventType.ExecutionStarted, EventType.ExecutionCompleted, EventType.AdminAction];

/**
 * Issue 11 item 4: `UPDATE noetl.event` succeeded, so the ledger was
 * append-only by convention only. A trigger now refuses every change to an
 * event, for the owner too; retention is the one audited way out.
 */
describe('the append-only ledger', () => {
  let t: TestEngine;
  let owner: Client;

  beforeAll(async () => {
    t = await startTestEngine();
    await t.engine.own.catalog.register(PLAYBOOK);
    await t.engine.own.catalog.register(WAITING);
    owner = new Client({ connectionString: t.testDatabase.url });
    await owner.connect();
  });
  afterAll(async () => {
    await owner?.end();
    await t?.close();
  });

  async function completed(): Promise<string> {
    const { execution_id: id } = await t.engine.own.executions.start({ path: 'tests/retention' });
    expect(await t.engine.waitForTerminal(id, { timeoutMs: 15_000 })).toMatchObject({ status: 'COMPLETED' });
    return id;
  }
  const stateOf = (promise: Promise<unknown>): Promise<string | undefined> => promise.then(() => undefined, sqlStateOf);
  const typesOf = async (id: string): Promise<string[]> =>
    (await t.engine.own.executions.events(id, { limit: 1000 })).events.map((event) => event.event_type);

  it('refuses UPDATE, DELETE and TRUNCATE of noetl.event to the owner (a superuser here)', async () => {
    const id = await completed();
    const before = await typesOf(id);
    expect(await stateOf(owner.query(`UPDATE noetl.event SET payload = '{}' WHERE execution_id = $1::bigint`, [id]))).toBe(
      SqlState.InsufficientPrivilege,
    );
    expect(await stateOf(owner.query(`DELETE FROM noetl.event WHERE execution_id = $1::bigint`, [id]))).toBe(
      SqlState.InsufficientPrivilege,
    );
    expect(await stateOf(owner.query('TRUNCATE noetl.event CASCADE'))).toBe(SqlState.InsufficientPrivilege);
    expect(await typesOf(id)).toEqual(before);
  });

  it('refuses them to an application role granted every table privilege', async () => {
    const id = await completed();
    const role = `noetl_app_${randomBytes(4).toString('hex')}`;
    await withAdminClient((admin) => admin.query(`CREATE ROLE ${role} LOGIN`));
    await owner.query(`GRANT USAGE ON SCHEMA noetl TO ${role}; GRANT ALL ON ALL TABLES IN SCHEMA noetl TO ${role}`);
    const url = new URL(t.testDatabase.url);
    url.username = role;
    const app = new Client({ connectionString: url.toString() });
    await app.connect();
    try {
      expect(await stateOf(app.query(`UPDATE noetl.event SET status = 'X' WHERE execution_id = $1::bigint`, [id]))).toBe(
        SqlState.InsufficientPrivilege,
      );
      expect(await stateOf(app.query(`DELETE FROM noetl.event WHERE execution_id = $1::bigint`, [id]))).toBe(
        SqlState.InsufficientPrivilege,
      );
    } finally {
      await app.end();
      await owner.query(`REVOKE ALL ON ALL TABLES IN SCHEMA noetl FROM ${role}; REVOKE USAGE ON SCHEMA noetl FROM ${role}`);
      await withAdminClient((admin) => admin.query(`DROP ROLE ${role}`));
    }
  });

  it('purges an ended execution through the audited procedure: start, end and audits stay, the rest and its rows go', async () => {
    const id = await completed();
    expect(await typesOf(id)).toContain(EventType.CommandCompleted);
    const result = await t.engine.own.admin.purge(id, { actor: 'ops@example', reason: 'retention: older than 30 days' });
    expect(result).toMatchObject({ action: 'purge', target_type: 'execution', target_id: id, status: 'COMPLETED' });
    expect(await typesOf(id)).toEqual(KEPT);
    const [audit] = (await t.engine.own.executions.events(id, { type: [EventType.AdminAction] })).events;
    expect(audit?.payload).toEqual({
      actor: 'ops@example',
      action: 'purge',
      target_type: 'execution',
      target_id: id,
      reason: 'retention: older than 30 days',
    });
    const { rows } = await owner.query<{ n: number }>(`SELECT count(*)::int AS n FROM noetl.command WHERE execution_id = $1::bigint`, [id]);
    expect(rows[0]?.n).toBe(0);
    // What is left still reads: the execution, its outcome and its state as of any point.
    expect(await t.engine.own.executions.get(id)).toMatchObject({ execution_id: id, status: 'COMPLETED', steps: [] });
    expect((await t.engine.own.replay.stateAt({ executionId: id })).state).toMatchObject({
      execution: expect.objectContaining({ status: 'COMPLETED' }),
    });
    // The audit itself and the kept events cannot be deleted, even beside a purge audit of the same transaction.
    expect(await stateOf(t.engine.own.admin.purge(id, { reason: 'again' }))).toBeUndefined();
    expect(await typesOf(id)).toEqual([...KEPT, EventType.AdminAction]);
    await owner.query('BEGIN');
    try {
      expect(
        await stateOf(
          owner.query(`DELETE FROM noetl.event WHERE execution_id = $1::bigint AND event_type IN ('admin.action', 'execution.started')`, [
            id,
          ]),
        ),
      ).toBe(SqlState.InsufficientPrivilege);
    } finally {
      await owner.query('ROLLBACK');
    }
  });

  it('refuses to purge a running execution, or without a reason', async () => {
    const id = await completed();
    await expect(t.engine.own.admin.purge(id, { reason: ' ' })).rejects.toMatchObject({ code: 'invalid_request' });
    const { execution_id: running } = await t.engine.own.executions.start({ path: 'tests/retention_wait' });
    await expect(t.engine.own.admin.purge(running, { reason: 'x' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('only an ended execution is purged'),
    });
    expect(await typesOf(running)).toContain(EventType.ExecutionStarted);
    await t.engine.own.executions.cancel(running, {});
    await expect(t.engine.own.admin.purge('999999999999', { reason: 'x' })).rejects.toMatchObject({ code: 'not_found' });
  });
});
