import { buildEvent, envelopeChecksum, EventType, sealEvent, SnowflakeIds, type AnyNewEvent } from '@noetl/event-kernel';
import { EVENT_COLUMNS, INSERT_EVENT_SQL, eventInsertParams, normaliseNewEvent, toLedgerEvent, type EventRow } from './event-row';
import { InvalidEventError } from './event-store';

const ids = new SnowflakeIds(3, () => Date.UTC(2026, 0, 1));
const context = { ids, now: () => new Date('2026-01-01T00:00:00.000Z'), producer: 'spec', tenantId: 't', organizationId: 'o' };

function issued() {
  return buildEvent(
    {
      type: EventType.CommandIssued,
      executionId: '100',
      commandId: '200',
      step: 'fetch',
      payload: { command_id: '200', step: 'fetch', run_id: 'r', kind: 'http', attempt: 1, max_attempts: 2, spec: { n: [1, 2] } },
      payloadRef: { sha256: 'a'.repeat(64), media_type: 'application/json', bytes: 3 },
    },
    context,
  );
}

/** What pg hands back for a stored sealed event. */
function rowOf(sealed: ReturnType<typeof sealEvent>): EventRow {
  return { ...sealed, event_time: new Date(sealed.event_time), ingest_time: new Date(sealed.ingest_time) };
}

describe('event rows', () => {
  it('insert every envelope column with a parameter each, and do nothing on any conflict', () => {
    expect(EVENT_COLUMNS).toHaveLength(29);
    expect(INSERT_EVENT_SQL).toContain('$29::text');
    expect(INSERT_EVENT_SQL).toContain('ON CONFLICT DO NOTHING RETURNING');
  });

  it('send jsonb as JSON text and SQL NULL for an absent ref', () => {
    const sealed = sealEvent(normaliseNewEvent(issued()), 1, new Date('2026-01-01T00:00:01Z'));
    const params = eventInsertParams(sealed);
    const at = (column: string): unknown => params[EVENT_COLUMNS.indexOf(column as (typeof EVENT_COLUMNS)[number])];

    expect(at('payload')).toBe(JSON.stringify(sealed.payload));
    expect(at('meta')).toBe('{}');
    expect(at('payload_ref')).toBe(JSON.stringify(sealed.payload_ref));
    expect(eventInsertParams({ ...sealed, payload_ref: null })[EVENT_COLUMNS.indexOf('payload_ref')]).toBeNull();
    expect(at('stream_version')).toBe(1);
  });

  it('map a stored row back to the sealed envelope, so its checksum verifies', () => {
    const sealed = sealEvent(normaliseNewEvent(issued()), 4, new Date('2026-01-01T00:00:01.5Z'));

    const event = toLedgerEvent(rowOf(sealed));

    expect(event).toEqual(sealed);
    expect(envelopeChecksum(event)).toBe(event.checksum);
  });

  it('normalise absent optional members to null and drop members outside the envelope', () => {
    const { causation_id: _c, meta: _m, ...partial } = issued();
    const loose = { ...partial, extra: 'not stored' } as unknown as AnyNewEvent;

    const normalised = normaliseNewEvent(loose);

    expect(normalised.causation_id).toBeNull();
    expect(normalised.meta).toEqual({});
    expect(normalised).not.toHaveProperty('extra');
  });

  it('normalise event_time to millisecond UTC ISO', () => {
    const event = { ...issued(), event_time: '2026-05-05T10:00:00+02:00' };
    expect(normaliseNewEvent(event).event_time).toBe('2026-05-05T08:00:00.000Z');
  });

  it('reject an unknown type, a missing payload and an unreadable event_time', () => {
    expect(() => normaliseNewEvent({ ...issued(), event_type: 'nope' } as unknown as AnyNewEvent)).toThrow(InvalidEventError);
    expect(() => normaliseNewEvent({ ...issued(), payload: null } as unknown as AnyNewEvent)).toThrow(/no payload object/);
    expect(() => normaliseNewEvent({ ...issued(), event_time: 'yesterday' })).toThrow(/event_time is not a valid timestamp/);
    expect(() => normaliseNewEvent({ ...issued(), execution_id: '' })).toThrow(/no execution_id/);
  });

  it('refuse to map a row of an unknown type', () => {
    const sealed = sealEvent(normaliseNewEvent(issued()), 1, new Date());
    expect(() => toLedgerEvent({ ...rowOf(sealed), event_type: 'gone.away' })).toThrow(InvalidEventError);
  });
});
