import { EventType } from '@noetl/event-kernel';
import { CommandRepository } from '@noetl/storage';
import { startUntilIssued } from '../../../../test/support/issued-command';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';

const PLAYBOOK = `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: expected_writes, path: tests/expected-writes}
workflow:
  - step: start
    tool: {kind: noop}
    next: [{step: last}]
  - step: last
    tool: {kind: noop}
`;

/** A report planned in its own transaction: the step ends and the next one's command is issued. */
const REPORTED_AND_PLANNED = [EventType.CommandCompleted, EventType.StepExit, EventType.StepEnter, EventType.CommandIssued];

/**
 * A report or claim of a command whose execution state this process holds
 * at its stream's head goes without a read, behind a guard in the database
 * (noetl.expect_report, noetl.expect_claim). The spec plays the worker of an
 * engine with the scheduler role, and counts the writes that expected the
 * row (CommandRepository.expectReport and expectClaim, observed, not
 * replaced) and those the guard sent back to read it
 * (noetl_control_plane_rereads_total).
 */
describe('reports and claims sent without a read', () => {
  let t: TestEngine;
  const reports = jest.spyOn(CommandRepository.prototype, 'expectReport');
  const claims = jest.spyOn(CommandRepository.prototype, 'expectClaim');

  beforeAll(async () => {
    t = await startTestEngine({ roles: ['scheduler'] });
    await t.engine.own.catalog.register(PLAYBOOK);
  });
  beforeEach(() => {
    reports.mockClear();
    claims.mockClear();
  });
  afterAll(async () => {
    reports.mockRestore();
    claims.mockRestore();
    await t?.close();
  });

  const rereads = async (): Promise<number> => {
    const text = await t.engine.metrics.registry.getSingleMetricAsString('noetl_control_plane_rereads_total');
    return Number(/noetl_control_plane_rereads_total (\d+)/.exec(text)?.[1]);
  };

  /** A new execution's first command, issued (the start planned here: the state is at the head). */
  const issuedCommand = (): Promise<{ executionId: string; commandId: string }> => startUntilIssued(t.engine, 'tests/expected-writes');

  /** An execution whose first command the spec claimed as worker `w1` (its claim planned here: the state is at the head). */
  async function claimedCommand(): Promise<{ executionId: string; commandId: string; lease_token: string }> {
    const { executionId, commandId } = await issuedCommand();
    const { lease_token } = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'w1' });
    return { executionId, commandId, lease_token };
  }

  const eventTypes = async (executionId: string): Promise<string[]> =>
    (await t.engine.own.executions.events(executionId, { limit: 1000 })).events.map((event) => event.event_type);

  it('checks the command and the stream in the guard and plans on from the state it holds', async () => {
    const reread = await rereads();
    const { executionId, commandId, lease_token } = await claimedCommand();
    await t.engine.own.controlPlane.complete(commandId, { worker_id: 'w1', lease_token, result: { n: 1 } });

    expect(reports).toHaveBeenCalledTimes(1);
    expect(await rereads()).toBe(reread);
    expect((await eventTypes(executionId)).slice(-REPORTED_AND_PLANNED.length)).toEqual(REPORTED_AND_PLANNED);
    expect(await t.engine.own.executions.stepResult(executionId, 'start')).toEqual({ n: 1 });
  });

  it('reads the command under the lock when the stream moved on since the state it holds', async () => {
    const reread = await rereads();
    const { executionId, commandId, lease_token } = await claimedCommand();
    // A heartbeat appends to the stream and plans nothing: this process's state stays a version behind.
    await t.engine.own.controlPlane.heartbeat(commandId, { worker_id: 'w1', lease_token });
    await t.engine.own.controlPlane.complete(commandId, { worker_id: 'w1', lease_token, result: { n: 2 } });

    expect(reports).toHaveBeenCalledTimes(1);
    expect(await rereads()).toBe(reread + 1);
    const events = (await t.engine.own.executions.events(executionId, { limit: 1000 })).events;
    expect(events.map((event) => event.position)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((event) => event.event_type === EventType.CommandCompleted)).toHaveLength(1);
    expect(events.map((event) => event.event_type).slice(-REPORTED_AND_PLANNED.length - 1)).toEqual([
      EventType.CommandHeartbeat,
      ...REPORTED_AND_PLANNED,
    ]);
    expect(await t.engine.own.executions.stepResult(executionId, 'start')).toEqual({ n: 2 });
  });

  it("refuses a report with another token of the holder's worker id, and appends nothing", async () => {
    const reread = await rereads();
    const { executionId, commandId } = await claimedCommand();
    const before = await eventTypes(executionId);
    await expect(
      t.engine.own.controlPlane.complete(commandId, { worker_id: 'w1', lease_token: 'forged', result: { forged: true } }),
    ).rejects.toMatchObject({ code: 'lease_lost' });

    expect(reports).toHaveBeenCalledTimes(1);
    expect(await rereads()).toBe(reread + 1);
    expect(await eventTypes(executionId)).toEqual(before);
  });

  it('claims a command this process issued from the state it holds, its spec as issued', async () => {
    const reread = await rereads();
    const { executionId, commandId } = await issuedCommand();
    const claimed = await t.engine.own.controlPlane.claim(commandId, { worker_id: 'w2' });

    expect(claims).toHaveBeenCalledTimes(1);
    expect(await rereads()).toBe(reread);
    expect(claimed).toMatchObject({ command_id: commandId, execution_id: executionId, step: 'start', kind: 'noop' });
    const [row] = await t.database.query<{ status: string; worker_id: string }>(
      'SELECT status, worker_id FROM noetl.command WHERE command_id = $1::bigint',
      [commandId],
    );
    expect(row).toEqual({ status: 'RUNNING', worker_id: 'w2' });
    expect((await eventTypes(executionId)).at(-1)).toBe(EventType.CommandClaimed);
    // Claimed by its token since: reported from the state too.
    await t.engine.own.controlPlane.complete(commandId, { worker_id: 'w2', lease_token: claimed.lease_token });
    expect(reports).toHaveBeenCalledTimes(1);
    expect(await rereads()).toBe(reread);
  });

  it('reads a command claimed elsewhere since it was issued, and refuses the claim as already_claimed', async () => {
    const reread = await rereads();
    const { executionId, commandId } = await issuedCommand();
    // Another process's claim, as far as the row tells.
    await t.database.query(`UPDATE noetl.command SET status = 'RUNNING', worker_id = 'elsewhere' WHERE command_id = $1::bigint`, [
      commandId,
    ]);
    const before = await eventTypes(executionId);
    await expect(t.engine.own.controlPlane.claim(commandId, { worker_id: 'w3' })).rejects.toMatchObject({ code: 'already_claimed' });

    expect(claims).toHaveBeenCalledTimes(1);
    expect(await rereads()).toBe(reread + 1);
    expect(await eventTypes(executionId)).toEqual(before);
  });
});
