import { EventType } from '@noetl/event-kernel';
import { startUntilIssued } from '../../../../test/support/issued-command';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { waitFor } from '../../../../test/support/wait-for';

const PLAYBOOK = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: cp, path: tests/control-plane}
workflow:
  - step: start
    tool: {kind: noop}
`;

/** The control plane with no worker running: the spec plays the worker. */
describe('LocalControlPlane', () => {
  let t: TestEngine;

  beforeAll(async () => {
    t = await startTestEngine({ roles: ['scheduler'] });
    await t.engine.own.catalog.register(PLAYBOOK);
  });
  afterAll(async () => t?.close());

  const issuedCommand = (): Promise<{ executionId: string; commandId: string }> => startUntilIssued(t.engine, 'tests/control-plane');

  it('gives a command to one worker only; the holder may claim again with its token, no one with the worker id alone', async () => {
    const { commandId } = await issuedCommand();
    const claims = await Promise.allSettled(
      ['w1', 'w2', 'w3'].map((worker) => t.engine.own.controlPlane.claim(commandId, { worker_id: worker })),
    );
    const won = claims.filter((claim) => claim.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(claims.filter((claim) => claim.status === 'rejected').map((claim) => (claim as PromiseRejectedResult).reason.code)).toEqual([
      'already_claimed',
      'already_claimed',
    ]);
    const holder = (won[0] as PromiseFulfilledResult<{ command_id: string; lease_token: string }>).value;
    const winner = ['w1', 'w2', 'w3'][claims.indexOf(won[0]!)]!;
    await expect(t.engine.own.controlPlane.claim(commandId, { worker_id: winner })).rejects.toMatchObject({ code: 'already_claimed' });
    await expect(t.engine.own.controlPlane.claim(commandId, { worker_id: winner, lease_token: holder.lease_token })).resolves.toMatchObject(
      {
        command_id: holder.command_id,
        lease_token: holder.lease_token,
      },
    );
  });

  it("tells a child's outcome only to the holder of the command whose call started it", async () => {
    const { commandId } = await issuedCommand();
    const { lease_token } = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'w1' });
    const asHolder = { worker_id: 'w1', lease_token, holder: { kind: 'command' as const, id: commandId } };
    const { execution_id: child } = await t.engine.own.controlPlane.startNestedChild({
      ...asHolder,
      key: 'call-1',
      path: 'tests/control-plane',
    });
    await expect(t.engine.own.controlPlane.childOutcome(child, asHolder)).resolves.toMatchObject({
      status: expect.stringMatching(/^(RUNNING|COMPLETED)$/),
    });
    // Without the lease: refused, whoever the worker says it is.
    await expect(t.engine.own.controlPlane.childOutcome(child, { ...asHolder, lease_token: 'x'.repeat(32) })).rejects.toMatchObject({
      code: 'lease_lost',
    });
    // With the lease, another execution (not a child of this command's): as if there were none.
    const { executionId: stranger } = await issuedCommand();
    await expect(t.engine.own.controlPlane.childOutcome(stranger, asHolder)).rejects.toMatchObject({
      code: 'not_found',
      message: `execution ${stranger} not found`,
    });
  });

  it('completes once: a duplicate or late report is already_terminal and appends nothing', async () => {
    const { executionId, commandId } = await issuedCommand();
    const { lease_token } = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'w1' });
    await t.engine.own.controlPlane.complete(commandId, { worker_id: 'w1', lease_token, result: { ok: true } });
    const before = (await t.engine.own.executions.events(executionId, { limit: 1000 })).events.length;
    await expect(
      t.engine.own.controlPlane.complete(commandId, { worker_id: 'w1', lease_token, result: { ok: false } }),
    ).rejects.toMatchObject({ code: 'already_terminal' });
    await expect(
      t.engine.own.controlPlane.fail(commandId, { worker_id: 'w2', lease_token, error: { kind: 'internal', message: 'late' } }),
    ).rejects.toMatchObject({ code: 'already_terminal' });
    const detail = await t.engine.waitForTerminal(executionId, { timeoutMs: 10_000 });
    expect(detail.status).toBe('COMPLETED');
    const completed = (await t.engine.own.executions.events(executionId, { type: [EventType.CommandCompleted] })).events;
    expect(completed).toHaveLength(1);
    expect(before).toBeGreaterThan(0);
  });

  it('refuses heartbeats and reports from a worker that does not hold the lease, or presents another token', async () => {
    const { executionId, commandId } = await issuedCommand();
    await expect(t.engine.own.controlPlane.heartbeat(commandId, { worker_id: 'w1', lease_token: 'guess' })).rejects.toMatchObject({
      code: 'lease_lost',
    });
    const { lease_token } = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'w1' });
    await expect(t.engine.own.controlPlane.complete(commandId, { worker_id: 'w2', lease_token })).rejects.toMatchObject({
      code: 'lease_lost',
    });
    // Issue 15 defect 2: the worker id is in the events; with it and no token, a forged result is refused.
    const claimed = (await t.engine.own.executions.events(executionId, { type: [EventType.CommandClaimed] })).events[0]!;
    const publicWorkerId = String((claimed.payload as { worker_id: string }).worker_id);
    expect(JSON.stringify(claimed.payload)).not.toContain(lease_token);
    await expect(
      t.engine.own.controlPlane.complete(commandId, { worker_id: publicWorkerId, lease_token: 'forged', result: { forged: true } }),
    ).rejects.toMatchObject({
      code: 'lease_lost',
    });
    await expect(t.engine.own.controlPlane.heartbeat(commandId, { worker_id: 'w1', lease_token, lease_ms: 60_000 })).resolves.toMatchObject(
      { cancelled: false },
    );
  });

  it('tells the holder at its heartbeat that the execution was cancelled', async () => {
    const { executionId, commandId } = await issuedCommand();
    const { lease_token } = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'w1' });
    await t.engine.own.executions.cancel(executionId, { reason: 'test' });
    const detail = await t.engine.waitForTerminal(executionId, { timeoutMs: 10_000 });
    expect(detail.status).toBe('CANCELLED');
    await expect(t.engine.own.controlPlane.heartbeat(commandId, { worker_id: 'w1', lease_token })).resolves.toMatchObject({
      cancelled: true,
    });
    await expect(t.engine.own.controlPlane.complete(commandId, { worker_id: 'w1', lease_token })).rejects.toMatchObject({
      code: 'already_terminal',
    });
  });

  it('abandons a command whose lease ran out and issues the next one', async () => {
    const { executionId, commandId } = await issuedCommand();
    const { lease_token } = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'w1', lease_ms: 1 });
    const next = await waitFor(async () => {
      await t.engine.sweep();
      const issued = (await t.engine.own.executions.events(executionId, { type: [EventType.CommandIssued] })).events;
      return issued.length === 2 ? issued[1]!.command_id : undefined;
    });
    expect(next).not.toBe(commandId);
    const abandoned = (await t.engine.own.executions.events(executionId, { type: [EventType.CommandAbandoned] })).events;
    expect(abandoned.map((event) => event.command_id)).toEqual([commandId]);
    await expect(t.engine.own.controlPlane.complete(commandId, { worker_id: 'w1', lease_token })).rejects.toMatchObject({
      code: 'already_terminal',
    });
  });

  it('stores a result above the inline limit in the payload store and reads it back', async () => {
    const { executionId, commandId } = await issuedCommand();
    const { lease_token } = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'w1' });
    const big = { rows: Array.from({ length: 20_000 }, (_, i) => ({ i, text: 'x'.repeat(4) })) };
    await t.engine.own.controlPlane.complete(commandId, { worker_id: 'w1', lease_token, result: big });
    const [completed] = (await t.engine.own.executions.events(executionId, { type: [EventType.CommandCompleted] })).events;
    expect(completed?.payload).toMatchObject({ result_ref: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(completed?.payload).not.toHaveProperty('result');
    const detail = await t.engine.waitForTerminal(executionId, { timeoutMs: 10_000 });
    expect(detail.status).toBe('COMPLETED');
    expect(detail.result).toEqual(big);
  });
});
