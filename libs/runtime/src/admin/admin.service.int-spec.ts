import { EventType } from '@noetl/event-kernel';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { waitFor } from '../../../../test/support/wait-for';
import type { EventView } from '../executions/execution-types';

const PLAYBOOK = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: admin, path: tests/admin}
workflow:
  - step: start
    tool: {kind: noop}
`;

/**
 * The admin against a scheduler with no worker (the spec plays the worker)
 * and no periodic sweep, so an expired lease stays for the admin to see
 * instead of being reaped first.
 */
describe('AdminService', () => {
  let t: TestEngine;

  beforeAll(async () => {
    t = await startTestEngine({ roles: ['scheduler'], env: { NOETL_SWEEP_MS: '600000' } });
    await t.engine.own.catalog.register(PLAYBOOK);
  });
  afterAll(async () => t?.close());

  async function issuedCommand(): Promise<{ executionId: string; commandId: string }> {
    const { execution_id: executionId } = await t.engine.own.executions.start({ path: 'tests/admin' });
    const commandId = await waitFor(async () => (await eventsOf(executionId, EventType.CommandIssued))[0]?.command_id ?? undefined);
    return { executionId, commandId };
  }

  async function eventsOf(executionId: string, ...types: string[]): Promise<EventView[]> {
    return (await t.engine.own.executions.events(executionId, { limit: 1000, ...(types.length > 0 ? { type: types } : {}) })).events;
  }

  async function stuckReasons(kind: 'command' | 'frame'): Promise<Map<string, string>> {
    const { stuck } = await t.engine.own.admin.stuck({ kind, limit: 1000 });
    return new Map(stuck.map((work) => [work.id, work.reason]));
  }

  describe('commands', () => {
    it('lists expired leases, silent holders and long-unclaimed commands, each with its reason', async () => {
      const expired = await issuedCommand();
      await t.engine.own.controlPlane.claim(expired.commandId, { worker_id: 'w1', lease_ms: 1 });
      const unclaimed = await issuedCommand();
      await t.database.query(`UPDATE noetl.command SET created_at = now() - interval '2 minutes' WHERE command_id = $1::bigint`, [
        unclaimed.commandId,
      ]);
      // Claimed 50 s ago with a 60 s lease and not a heartbeat since: two beats (every 20 s) were missed.
      const silent = await issuedCommand();
      const silentLease = await t.engine.own.controlPlane.claim(silent.commandId, { worker_id: 'w1', lease_ms: 60_000 });
      await t.database.query(
        `UPDATE noetl.command SET claimed_at = now() - interval '50 seconds', started_at = now() - interval '50 seconds',
                lease_until = now() + interval '10 seconds' WHERE command_id = $1::bigint`,
        [silent.commandId],
      );
      const healthy = await issuedCommand();
      await t.engine.own.controlPlane.claim(healthy.commandId, { worker_id: 'w1', lease_ms: 60_000 });

      const reasons = await waitFor(async () => {
        const listed = await stuckReasons('command');
        return listed.get(expired.commandId) === 'lease_expired' ? listed : undefined;
      });
      expect(reasons.get(unclaimed.commandId)).toBe('unclaimed');
      expect(reasons.get(silent.commandId)).toBe('silent_heartbeat');
      expect(reasons.has(healthy.commandId)).toBe(false);
      const { stuck } = await t.engine.own.admin.stuck({ kind: 'command', limit: 1000 });
      expect(stuck.find((work) => work.id === expired.commandId)).toEqual({
        kind: 'command',
        id: expired.commandId,
        execution_id: expired.executionId,
        step: 'start',
        status: 'RUNNING',
        attempt: 1,
        max_attempts: 3,
        worker_id: 'w1',
        lease_until: expect.any(String),
        reason: 'lease_expired',
      });

      await t.engine.own.controlPlane.heartbeat(silent.commandId, {
        worker_id: 'w1',
        lease_token: silentLease.lease_token,
        lease_ms: 60_000,
      });
      expect((await stuckReasons('command')).has(silent.commandId)).toBe(false);
    });

    it('reclaims a claimed command: admin.action, then command.abandoned, then the next attempt is issued', async () => {
      const { executionId, commandId } = await issuedCommand();
      const { lease_token } = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'w1', lease_ms: 60_000 });

      const result = await t.engine.own.admin.reclaim('command', commandId, { actor: 'ops', reason: 'its host was lost' });
      expect(result).toEqual({
        action: 'reclaim',
        target_type: 'command',
        target_id: commandId,
        execution_id: executionId,
        event_id: expect.stringMatching(/^\d+$/),
        status: 'ABANDONED',
      });
      const issued = await waitFor(async () => {
        const events = await eventsOf(executionId, EventType.CommandIssued);
        return events.length === 2 ? events : undefined;
      });
      expect(issued[1]?.payload).toMatchObject({ attempt: 2, step: 'start' });

      const events = await eventsOf(executionId);
      const audit = events.findIndex((event) => event.event_type === EventType.AdminAction);
      expect(events[audit]).toMatchObject({
        event_id: result.event_id,
        command_id: commandId,
        payload: { actor: 'ops', action: 'reclaim', target_type: 'command', target_id: commandId, reason: 'its host was lost' },
      });
      expect(events[audit + 1]).toMatchObject({
        event_type: EventType.CommandAbandoned,
        command_id: commandId,
        payload: { attempt: 1, worker_id: 'w1', reason: 'reclaimed by admin' },
      });
      const [row] = await t.database.query<{ status: string }>('SELECT status FROM noetl.command WHERE command_id = $1::bigint', [
        commandId,
      ]);
      expect(row?.status).toBe('ABANDONED');

      // The old holder is told at its next report; a second reclaim finds nothing to take.
      await expect(t.engine.own.controlPlane.heartbeat(commandId, { worker_id: 'w1', lease_token })).rejects.toMatchObject({
        code: 'already_terminal',
      });
      await expect(t.engine.own.admin.reclaim('command', commandId, {})).rejects.toMatchObject({ code: 'already_terminal' });
      expect(await eventsOf(executionId, EventType.AdminAction)).toHaveLength(1);
    });

    it('refuses to reclaim a command no worker holds, and an unknown one, recording nothing', async () => {
      const { executionId, commandId } = await issuedCommand();
      await expect(t.engine.own.admin.reclaim('command', commandId)).rejects.toMatchObject({ code: 'invalid_request' });
      await expect(t.engine.own.admin.reclaim('command', '4242')).rejects.toMatchObject({ code: 'not_found' });
      await expect(t.engine.own.admin.fail('command', 'not-an-id', { reason: 'x' })).rejects.toMatchObject({ code: 'not_found' });
      expect(await eventsOf(executionId, EventType.AdminAction)).toHaveLength(0);
    });

    it("fails a command with the admin's reason, and the execution fails as for any unhandled failure", async () => {
      const { executionId, commandId } = await issuedCommand();
      const { lease_token } = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'w1', lease_ms: 60_000 });
      await expect(t.engine.own.admin.fail('command', commandId, { reason: '  ' })).rejects.toMatchObject({ code: 'invalid_request' });

      const result = await t.engine.own.admin.fail('command', commandId, { reason: 'poison input' });
      expect(result).toMatchObject({ action: 'fail', target_type: 'command', status: 'FAILED' });
      const detail = await t.engine.waitForTerminal(executionId, { timeoutMs: 10_000 });
      expect(detail.status).toBe('FAILED');
      expect(detail.error).toMatchObject({ kind: 'admin', message: 'poison input' });
      const [audit] = await eventsOf(executionId, EventType.AdminAction);
      expect(audit?.payload).toEqual({
        actor: 'admin',
        action: 'fail',
        target_type: 'command',
        target_id: commandId,
        reason: 'poison input',
      });

      await expect(t.engine.own.controlPlane.complete(commandId, { worker_id: 'w1', lease_token })).rejects.toMatchObject({
        code: 'already_terminal',
      });
      await expect(t.engine.own.admin.fail('command', commandId, { reason: 'again' })).rejects.toMatchObject({ code: 'already_terminal' });
      expect(await eventsOf(executionId, EventType.AdminAction)).toHaveLength(1);
    });
  });

  describe('executions', () => {
    it('finalizes a stuck execution: admin.action, execution.failed, its open command cancelled; then refuses', async () => {
      const { executionId, commandId } = await issuedCommand();
      const result = await t.engine.own.admin.finalize(executionId, { actor: 'ops', reason: 'stuck since Tuesday' });
      expect(result).toMatchObject({ action: 'finalize', target_type: 'execution', target_id: executionId, status: 'FAILED' });

      const detail = await t.engine.waitForTerminal(executionId, { timeoutMs: 10_000 });
      expect(detail.status).toBe('FAILED');
      expect(detail.error).toMatchObject({ kind: 'admin', message: 'stuck since Tuesday' });
      const tail = (await eventsOf(executionId)).slice(-3);
      expect(tail.map((event) => event.event_type)).toEqual([EventType.AdminAction, EventType.ExecutionFailed, EventType.CommandCancelled]);
      expect(tail[2]?.command_id).toBe(commandId);
      const [row] = await t.database.query<{ status: string }>('SELECT status FROM noetl.command WHERE command_id = $1::bigint', [
        commandId,
      ]);
      expect(row?.status).toBe('CANCELLED');

      await expect(t.engine.own.admin.finalize(executionId, { reason: 'again' })).rejects.toMatchObject({ code: 'already_terminal' });
      await expect(t.engine.own.admin.cancelExecution(executionId)).rejects.toMatchObject({ code: 'already_terminal' });
      await expect(t.engine.own.admin.finalize('4242', { reason: 'x' })).rejects.toMatchObject({ code: 'not_found' });
      expect(await eventsOf(executionId, EventType.AdminAction)).toHaveLength(1);
    });

    it('cancels an execution on behalf of the actor; the scheduler cancels its open command', async () => {
      const { executionId, commandId } = await issuedCommand();
      const result = await t.engine.own.admin.cancelExecution(executionId, { actor: 'ops', reason: 'wrong input' });
      expect(result).toMatchObject({ action: 'cancel', target_type: 'execution', status: 'CANCELLED' });

      const detail = await t.engine.waitForTerminal(executionId, { timeoutMs: 10_000 });
      expect(detail.status).toBe('CANCELLED');
      const [cancelled] = await eventsOf(executionId, EventType.ExecutionCancelled);
      expect(cancelled?.payload).toEqual({ reason: 'wrong input', by: 'ops' });
      const commandCancelled = await waitFor(async () => (await eventsOf(executionId, EventType.CommandCancelled))[0]);
      expect(commandCancelled.command_id).toBe(commandId);
      await expect(t.engine.own.admin.cancelExecution('4242')).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  /*
   * Frames at the table level: the stage and frame rows are written here by
   * hand, so the planner of their execution knows no such loop (its pass over
   * the frame events fails, which is not what these tests look at).
   */
  describe('frames', () => {
    let executionId: string;
    let stageId: string;
    let nextId = BigInt(Date.now()) * 1_000_000n;
    const newId = (): string => String((nextId += 1n));

    beforeAll(async () => {
      ({ executionId } = await issuedCommand());
      stageId = newId();
      const { tenantId, organizationId } = t.config.tenancy;
      await t.database.query(
        `INSERT INTO noetl.stage (stage_id, tenant_id, organization_id, execution_id, loop_id, step_name, kind, frame_policy)
         VALUES ($1, $2, $3, $4, $5, 'start', 'loop', '{"max_attempts": 2}')`,
        [stageId, tenantId, organizationId, executionId, newId()],
      );
    });

    let frameIndex = 0;
    async function frame(columns: {
      status: string;
      owner?: string;
      lease: string | null;
      attempts: number;
      age?: string;
    }): Promise<string> {
      const frameId = newId();
      const { tenantId, organizationId } = t.config.tenancy;
      await t.database.query(
        `INSERT INTO noetl.frame (frame_id, tenant_id, organization_id, stage_id, execution_id, frame_index, cursor, status, owner_worker,
                                  lease_until, attempts, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, '{}', $7, $8, now() + $9::interval, $10, now() - $11::interval)`,
        [
          frameId,
          tenantId,
          organizationId,
          stageId,
          executionId,
          frameIndex++,
          columns.status,
          columns.owner ?? null,
          columns.lease,
          columns.attempts,
          columns.age ?? '0 s',
        ],
      );
      return frameId;
    }

    async function frameRow(
      frameId: string,
    ): Promise<{ status: string; owner_worker: string | null; lease_until: Date | null } | undefined> {
      const [row] = await t.database.query<{ status: string; owner_worker: string | null; lease_until: Date | null }>(
        'SELECT status, owner_worker, lease_until FROM noetl.frame WHERE frame_id = $1::bigint',
        [frameId],
      );
      return row;
    }

    it('lists stuck frames with their reasons and the policy attempts', async () => {
      const expired = await frame({ status: 'RUNNING', owner: 'w1', lease: '-1 second', attempts: 1 });
      const silent = await frame({ status: 'RUNNING', owner: 'w1', lease: '10 seconds', attempts: 1, age: '50 seconds' });
      const exhausted = await frame({ status: 'PENDING', lease: null, attempts: 2 });
      const unclaimed = await frame({ status: 'PENDING', lease: null, attempts: 0, age: '2 minutes' });
      const healthy = await frame({ status: 'RUNNING', owner: 'w1', lease: '60 seconds', attempts: 1 });

      const reasons = await stuckReasons('frame');
      expect([expired, silent, exhausted, unclaimed, healthy].map((id) => reasons.get(id))).toEqual([
        'lease_expired',
        'silent_heartbeat',
        'attempts_exhausted',
        'unclaimed',
        undefined,
      ]);
      const { stuck } = await t.engine.own.admin.stuck({ kind: 'frame' });
      expect(stuck.find((work) => work.id === exhausted)).toMatchObject({
        kind: 'frame',
        step: 'start',
        status: 'PENDING',
        attempt: 2,
        max_attempts: 2,
      });
      expect((await t.engine.own.admin.stuck({ kind: 'command', limit: 1000 })).stuck.some((work) => work.kind === 'frame')).toBe(false);
    });

    it('reclaims a claimed frame: frame.abandoned, and the row is pending again with no owner', async () => {
      const frameId = await frame({ status: 'RUNNING', owner: 'w7', lease: '60 seconds', attempts: 1 });
      const result = await t.engine.own.admin.reclaim('frame', frameId, { actor: 'ops' });
      expect(result).toMatchObject({
        action: 'reclaim',
        target_type: 'frame',
        target_id: frameId,
        execution_id: executionId,
        status: 'PENDING',
      });
      expect(await frameRow(frameId)).toEqual({ status: 'PENDING', owner_worker: null, lease_until: null });

      const events = await eventsOf(executionId, EventType.AdminAction, EventType.FrameAbandoned);
      const audit = events.findIndex((event) => event.event_id === result.event_id);
      expect(events[audit]).toMatchObject({
        frame_id: frameId,
        payload: { actor: 'ops', action: 'reclaim', target_type: 'frame', target_id: frameId },
      });
      expect(events[audit + 1]).toMatchObject({
        event_type: EventType.FrameAbandoned,
        frame_id: frameId,
        payload: { frame_id: frameId, worker_id: 'w7', attempt: 1, reason: 'reclaimed by admin' },
      });
      await expect(t.engine.own.admin.reclaim('frame', frameId)).rejects.toMatchObject({ code: 'invalid_request' });
    });

    it('fails a frame with the reason; a failed frame takes no more actions', async () => {
      const frameId = await frame({ status: 'RUNNING', owner: 'w7', lease: '60 seconds', attempts: 2 });
      await t.engine.own.admin.fail('frame', frameId, { reason: 'rows are malformed' });
      expect((await frameRow(frameId))?.status).toBe('FAILED');
      const failed = (await eventsOf(executionId, EventType.FrameFailed)).find((event) => event.frame_id === frameId);
      expect(failed?.payload).toMatchObject({
        frame_id: frameId,
        stage_id: stageId,
        error: { kind: 'admin', message: 'rows are malformed' },
        attempt: 2,
      });

      const before = (await eventsOf(executionId, EventType.AdminAction)).length;
      await expect(t.engine.own.admin.fail('frame', frameId, { reason: 'again' })).rejects.toMatchObject({ code: 'already_terminal' });
      await expect(t.engine.own.admin.reclaim('frame', frameId)).rejects.toMatchObject({ code: 'already_terminal' });
      await expect(t.engine.own.admin.reclaim('frame', '4242')).rejects.toMatchObject({ code: 'not_found' });
      expect(await eventsOf(executionId, EventType.AdminAction)).toHaveLength(before);
    });
  });
});
