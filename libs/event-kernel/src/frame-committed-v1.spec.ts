import { buildEvent, sealEvent, type EventDraft, type LedgerEvent } from './envelope';
import { EventType, type EventTypeName } from './event-types';
import { ID_EPOCH_MS, SnowflakeIds } from './ids';
import { foldEvents } from './reducers/apply-event';
import { stateChecksum } from './projection/surfaces';
import { defaultUpcasters } from './default-upcasters';
import { UpcasterRegistry } from './upcasters';

/** A loop of 5 items in frames of 3 and 2 rows; row 3 fails. The same ids on every call. */
function ledger(frameShape: 'v1' | 'v2'): LedgerEvent[] {
  const context = {
    ids: new SnowflakeIds(5, () => ID_EPOCH_MS + 1),
    now: () => new Date(Date.UTC(2026, 0, 1)),
    producer: 'test',
    tenantId: 't',
    organizationId: 'o',
  };
  let version = 0;
  const ev = <T extends EventTypeName>(draft: Omit<EventDraft<T>, 'executionId'>): LedgerEvent =>
    sealEvent(buildEvent({ ...draft, executionId: '100' } as EventDraft<T>, context), ++version, new Date(0)) as LedgerEvent;
  const committed = (frameIndex: number, first: number, count: number, failed: number[]): LedgerEvent => {
    const error = { kind: 'code', message: 'bad row' };
    const event = ev({
      type: EventType.FrameCommitted,
      loopId: 'L',
      payload: {
        frame_id: `f${frameIndex}`,
        stage_id: 'S',
        frame_index: frameIndex,
        row_count: count,
        first_index: first,
        failed_rows: failed.map((index) => ({ index, status: 'error' as const, error })),
        results: Array.from({ length: count }, (_, i) => (failed.includes(first + i) ? null : first + i)),
      },
    });
    if (frameShape === 'v2') return event;
    // The same frame as schema version 1 wrote it: every row listed.
    const { first_index: _first, failed_rows: _failed, ...rest } = event.payload as Record<string, unknown>;
    const rows = Array.from({ length: count }, (_, i) =>
      failed.includes(first + i) ? { index: first + i, status: 'error', error } : { index: first + i, status: 'ok' },
    );
    return { ...event, schema_version: 1, payload: { ...rest, rows } } as unknown as LedgerEvent;
  };
  return [
    ev({ type: EventType.ExecutionStarted, payload: { path: 'p', version: 1, catalog_id: '5', workload: {} } }),
    ev({ type: EventType.StepEnter, payload: { step: 'each', run_id: 'r', activation: 1 } }),
    ev({
      type: EventType.LoopStarted,
      payload: {
        loop_id: 'L',
        step: 'each',
        run_id: 'r',
        epoch: 1,
        size: 5,
        collection: [0, 1, 2, 3, 4],
        mode: 'parallel',
        max_in_flight: 2,
        stage_id: 'S',
      },
    }),
    committed(0, 0, 3, []),
    committed(1, 3, 2, [3]),
  ];
}

describe('frame.committed version 1 -> 2', () => {
  const upcasters = defaultUpcasters();

  it('writes new frames at version 2 with only the failed rows', () => {
    const v2 = ledger('v2').at(-1)!;
    expect(v2).toMatchObject({
      schema_version: 2,
      payload: { row_count: 2, first_index: 3, failed_rows: [{ index: 3, status: 'error' }] },
    });
  });

  it('lifts a version 1 frame to version 2', () => {
    const v1 = ledger('v1').at(-1)!;
    expect(v1.schema_version).toBe(1);
    // The envelope keeps the checksum of what was written: the stored bytes are still verifiable.
    expect({ ...upcasters.upcast(v1), checksum: null }).toEqual({ ...ledger('v2').at(-1), checksum: null });
  });

  it('folds a ledger holding both shapes to the state a ledger of either shape gives', () => {
    const v1 = ledger('v1').map((event) => upcasters.upcast(event) as LedgerEvent);
    const v2 = ledger('v2');
    const mixed = [...ledger('v1').slice(0, 4), ledger('v2')[4]!].map((event) => upcasters.upcast(event) as LedgerEvent);
    const state = foldEvents(v2)!;
    expect(state.loops.L).toMatchObject({ succeededRows: 4, failedRows: 1 });
    expect(state.loops.L!.frames[1]).toMatchObject({
      rowCount: 2,
      failedRows: [{ index: 3, status: 'error', error: { kind: 'code', message: 'bad row' } }],
    });
    expect(stateChecksum(foldEvents(v1)!)).toBe(stateChecksum(state));
    expect(stateChecksum(foldEvents(mixed)!)).toBe(stateChecksum(state));
  });

  it('changes the registry digest, so snapshots folded without it never seed a replay', () => {
    expect(upcasters.digest()).not.toBe(new UpcasterRegistry().digest());
  });
});
