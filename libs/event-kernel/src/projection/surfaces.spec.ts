import { buildEvent, sealEvent, type EventDraft, type LedgerEvent } from '../envelope';
import { EventType, type EventTypeName } from '../event-types';
import { ID_EPOCH_MS, SnowflakeIds } from '../ids';
import { foldEvents } from '../reducers/apply-event';
import { diffStates } from './diff';
import { checksumsOf, surfacesOf, SURFACES } from './surfaces';

const context = {
  ids: new SnowflakeIds(3, () => ID_EPOCH_MS + 1),
  now: () => new Date(Date.UTC(2026, 0, 1)),
  producer: 'test',
  tenantId: 't',
  organizationId: 'o',
};

/** A fixed corpus: the same events on every run, so their checksums are pinned. */
function corpus(): LedgerEvent[] {
  let version = 0;
  const ev = <T extends EventTypeName>(draft: Omit<EventDraft<T>, 'executionId'>): LedgerEvent =>
    sealEvent(buildEvent({ ...draft, executionId: '100' } as EventDraft<T>, context), ++version, new Date(0)) as LedgerEvent;
  return [
    ev({ type: EventType.ExecutionStarted, payload: { path: 'p', version: 1, catalog_id: '5', workload: { a: 1 } } }),
    ev({ type: EventType.StepEnter, step: 'start', payload: { step: 'start', run_id: 'r1', activation: 1 } }),
    ev({
      type: EventType.CommandIssued,
      commandId: 'c1',
      payload: { command_id: 'c1', step: 'start', run_id: 'r1', kind: 'python', attempt: 1, max_attempts: 3, spec: {} },
    }),
    ev({ type: EventType.CommandCompleted, commandId: 'c1', payload: { result: { ok: true } } }),
    ev({
      type: EventType.StepExit,
      step: 'start',
      payload: { step: 'start', run_id: 'r1', status: 'COMPLETED', result: { ok: true }, next: [] },
    }),
    ev({ type: EventType.ExecutionCompleted, payload: { result: { ok: true } } }),
  ];
}

describe('projection surfaces and checksums', () => {
  it('puts every field of the state in a surface and checksums each and the whole', () => {
    const state = foldEvents(corpus())!;
    const surfaces = surfacesOf(state);
    expect(Object.keys(surfaces)).toEqual([...SURFACES]);
    expect(surfaces.execution).toMatchObject({ status: 'COMPLETED', ctx: { a: 1 }, result: { ok: true } });
    expect(surfaces.commands).toMatchObject({ c1: { status: 'COMPLETED' } });
    const sums = checksumsOf(state);
    for (const sum of Object.values(sums)) expect(sum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps the checksums of a fixed corpus: a change to the reducer or the envelope that alters them fails here (bump REDUCER_VERSION and update them)', () => {
    expect(checksumsOf(foldEvents(corpus())!)).toEqual(GOLDEN);
  });

  it('shows what changed between two points of one execution', () => {
    const events = corpus();
    const before = surfacesOf(foldEvents(events.slice(0, 2))!);
    const after = surfacesOf(foldEvents(events.slice(0, 4))!);
    const changes = diffStates(before.commands, after.commands);
    expect(changes).toEqual([{ path: 'c1', after: expect.objectContaining({ status: 'COMPLETED' }) }]);
    expect(diffStates(after, after)).toEqual([]);
  });
});

const GOLDEN = {
  all: '259ea4d03b539113fc2a5e1fe8a4e732561d952eb66a83eded15038fb5e0b9d4',
  commands: '06ffbd3962e4774cd66ddf604ca97fc4bcac8679e137c6b3ca988bb9c7406d5e',
  execution: '06ec44d55dbeab37ce79d70e13a670ce1ca40a847c3695e4dbe86dd3c9426424',
  frames: '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
  loops: '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
  payloads: '4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945',
  stages: '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
  steps: '2b60d38e2a6028c3deed2fb9e2cc2870805efcd47838c38b9cd78fa944c92212',
};
