import { EventType, type ExecutionState } from '@noetl/event-kernel';
import type { Queryable } from '@noetl/storage';
import { startTestEngine, type TestEngine } from '../../../../test/support/test-engine';
import { waitFor } from '../../../../test/support/wait-for';
import { ExecutionStates } from '../state/execution-states';
import type { EventView } from '../executions/execution-types';
import { streamBacklog } from './stream-backlog';

jest.setTimeout(30_000);

const PLAYBOOK = (dsn: string): string => `
apiVersion: noetl.io/v2
kind: Playbook
metadata: {name: backlog, path: tests/backlog}
workflow:
  - step: read
    tool: {kind: postgres, connection: "${dsn}", query: "SELECT 1 AS n", stream: {chunk_rows: 1}}
    next:
      - {step: load_chunk, on: call.partial}
  - step: load_chunk
    tool: {kind: noop}
`;

/** The execution's state, with a scheduler pass committed just before it is read: between the backlog's two halves. */
class PlannedFirst extends ExecutionStates {
  private pass?: () => Promise<void>;

  planBeforeNextRead(pass: () => Promise<void>): void {
    this.pass = pass;
  }

  override async read<T>(q: Queryable, executionId: string, read: (state: ExecutionState | undefined) => Promise<T> | T): Promise<T> {
    const pass = this.pass;
    this.pass = undefined;
    await pass?.();
    return super.read(q, executionId, read);
  }
}

/**
 * A streamed command's backlog (issue 27 item 5) is chunks unplanned plus
 * chunks being consumed, read in two halves. A scheduler pass that plans a
 * chunk between them must not count that chunk twice: the worker would
 * wait with fewer chunks in flight than it may have, and its peak gauge
 * would read over the bound (CI saw 4 of 3).
 */
describe('stream backlog', () => {
  let t: TestEngine;

  beforeAll(async () => {
    // No worker: the chunks' consumers stay RUNNING; no sweep: only the spec's notices and passes plan.
    t = await startTestEngine({ roles: ['scheduler'], env: { NOETL_SWEEP_MS: '600000', NOETL_TOOLS_LEDGER_ACCESS: 'allow' } });
    await t.engine.own.catalog.register(PLAYBOOK(t.testDatabase.url));
  });
  afterAll(() => t?.close());

  it('counts a chunk planned between its two reads once', async () => {
    const { ledger, controlPlane, scheduler, executions } = t.engine.own;
    const { execution_id: executionId } = await executions.start({ path: 'tests/backlog' });
    const issued = async (step: string): Promise<EventView[]> =>
      (await executions.events(executionId, { type: [EventType.CommandIssued], limit: 100 })).events.filter((event) => event.step === step);
    const [read] = await waitFor(async () => ((await issued('read')).length ? issued('read') : undefined));
    const commandId = read!.command_id!;
    const holder = {
      worker_id: 'spec-worker',
      lease_token: (await controlPlane.claim(commandId, { worker_id: 'spec-worker' })).lease_token,
    };

    // Chunk 0 is reported as a worker does: planned on its notice, its consumer left running.
    await controlPlane.reportPartial(commandId, { ...holder, chunk_index: 0, has_more: true, columns: ['n'], rows: [{ n: 1 }] });
    await waitFor(async () => ((await issued('load_chunk')).length === 1 ? true : undefined));
    expect(await controlPlane.streamBacklog(commandId, holder)).toEqual({ pending_chunks: 1 });

    // Chunk 1 is in the ledger with no notice yet: unplanned.
    const partial = (await ledger.readAfter(t.database, executionId, 0)).find((event) => event.event_type === EventType.CallPartial);
    if (partial?.event_type !== EventType.CallPartial) throw new Error('chunk 0 is not in the ledger');
    await t.database.transaction((q) =>
      ledger.append(q, [
        {
          executionId,
          step: 'read',
          commandId,
          type: EventType.CallPartial,
          idempotencyKey: `partial:${commandId}:1`,
          payload: { ...partial.payload, chunk_index: 1 },
        },
      ]),
    );
    expect((await ledger.unplannedPartials(t.database, executionId, commandId)).count).toBe(1);

    // The pass that plans it commits after the unplanned half is read and before the consuming half.
    const states = new PlannedFirst(ledger);
    states.planBeforeNextRead(() => scheduler!.process(executionId));
    const backlog = await streamBacklog({ db: t.database, ledger, states }, executionId, commandId);

    expect(await issued('load_chunk')).toHaveLength(2);
    expect(backlog).toEqual({ pending_chunks: 2 });
  });
});
