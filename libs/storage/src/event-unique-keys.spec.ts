import { buildEvent, EventType, sealEvent, SnowflakeIds, type AnyNewEvent } from '@noetl/event-kernel';
import { normaliseNewEvent } from './event-row';
import { distinctiveKeys, EventUniqueKey, uniqueKeyLookups } from './event-unique-keys';

const ids = new SnowflakeIds(4, () => Date.UTC(2026, 0, 1));
const context = { ids, now: () => new Date('2026-01-01T00:00:00Z'), producer: 'spec', tenantId: 't', organizationId: 'o' };
const seal = (event: AnyNewEvent) => sealEvent(normaliseNewEvent(event), 7, new Date('2026-01-01T00:00:01Z'));
const keysOf = (event: AnyNewEvent) => uniqueKeyLookups(seal(event)).map((l) => l.key);

describe('uniqueKeyLookups', () => {
  it('tries the same event first and the stream position last', () => {
    const event = buildEvent({ type: EventType.CtxUpdated, executionId: '1', payload: { set: {} } }, context);
    expect(keysOf(event)).toEqual([EventUniqueKey.EventId, EventUniqueKey.StreamVersion]);
    expect(uniqueKeyLookups(seal(event))[1]!.params).toEqual(['execution/1', 7]);
  });

  it('looks for the rival command.issued of the same command', () => {
    const event = buildEvent(
      {
        type: EventType.CommandIssued,
        executionId: '1',
        commandId: '9',
        payload: { command_id: '9', step: 's', run_id: 'r', kind: 'http', attempt: 1, max_attempts: 1, spec: {} },
      },
      context,
    );
    const [, command] = uniqueKeyLookups(seal(event));
    expect(command).toEqual({
      key: EventUniqueKey.CommandIssued,
      where: 'execution_id = $1::bigint AND command_id = $2::bigint AND event_type = $3',
      params: ['1', '9', 'command.issued'],
    });
  });

  it('looks for the rival loop.done of the same loop', () => {
    const event = buildEvent(
      {
        type: EventType.LoopDone,
        executionId: '1',
        loopId: '5',
        payload: { loop_id: '5', step: 's', run_id: 'r', status: 'complete', total: 0, succeeded: 0, failed: 0 },
      },
      context,
    );
    expect(keysOf(event)).toEqual([EventUniqueKey.EventId, EventUniqueKey.LoopDone, EventUniqueKey.StreamVersion]);
  });

  it('looks for any terminal event of the execution, whatever its outcome', () => {
    const event = buildEvent(
      { type: EventType.ExecutionFailed, executionId: '1', payload: { error: { kind: 'x', message: 'y' } } },
      context,
    );
    const terminal = uniqueKeyLookups(seal(event)).find((l) => l.key === EventUniqueKey.Terminal);
    expect(terminal?.params).toEqual(['1']);
    expect(terminal?.where).toContain("IN ('execution.completed', 'execution.failed', 'execution.cancelled')");
  });

  it('looks up an idempotency key within the tenant', () => {
    const event = buildEvent({ type: EventType.CtxUpdated, executionId: '1', idempotencyKey: 'k', payload: { set: {} } }, context);
    const lookup = uniqueKeyLookups(seal(event)).find((l) => l.key === EventUniqueKey.IdempotencyKey);
    expect(lookup?.params).toEqual(['t', 'k']);
  });
});

describe('distinctiveKeys', () => {
  const issued = (commandId: string) =>
    normaliseNewEvent(
      buildEvent(
        {
          type: EventType.CommandIssued,
          executionId: '1',
          commandId,
          payload: { command_id: commandId, step: 's', run_id: 'r', kind: 'http', attempt: 1, max_attempts: 1, spec: {} },
        },
        context,
      ),
    );

  it('gives an event with no key but its id and position none (it may be deferred)', () => {
    expect(
      distinctiveKeys(normaliseNewEvent(buildEvent({ type: EventType.CtxUpdated, executionId: '1', payload: { set: {} } }, context))),
    ).toEqual([]);
  });

  it('names the key and its value, so two events of one command issue share it and two of different commands do not', () => {
    expect(distinctiveKeys(issued('9'))).toEqual(distinctiveKeys(issued('9')));
    expect(distinctiveKeys(issued('9'))).not.toEqual(distinctiveKeys(issued('8')));
    expect(
      distinctiveKeys(
        normaliseNewEvent(buildEvent({ type: EventType.CtxUpdated, executionId: '1', idempotencyKey: 'k', payload: { set: {} } }, context)),
      ),
    ).toEqual(['key:t:k']);
  });
});
