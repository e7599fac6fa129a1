import { canonicalChecksum } from './canonical-json';
import { buildEvent, envelopeChecksum, rowJson, sealEvent, type EventEnvelope } from './envelope';
import { EventType } from './event-types';
import { ID_EPOCH_MS, SnowflakeIds } from './ids';

const context = {
  ids: new SnowflakeIds(1, () => ID_EPOCH_MS + 42),
  now: () => new Date(Date.UTC(2026, 0, 1)),
  producer: 'noetl://test',
  tenantId: 't',
  organizationId: 'o',
};

describe('buildEvent', () => {
  it('fills the envelope with the execution as default aggregate', () => {
    const event = buildEvent(
      {
        type: EventType.CommandIssued,
        executionId: '7',
        step: 'fetch',
        commandId: '9',
        payload: {
          command_id: '9',
          step: 'fetch',
          run_id: 'r1',
          kind: 'http',
          attempt: 1,
          max_attempts: 1,
          spec: {},
        },
      },
      context,
    );
    expect(event).toMatchObject({
      execution_id: '7',
      stream_id: 'execution/7',
      aggregate_type: 'execution',
      event_type: 'command.issued',
      schema_name: 'noetl.command.issued',
      schema_version: 1,
      node_name: 'fetch',
      command_id: '9',
      correlation_id: '7',
      tenant_id: 't',
      event_time: '2026-01-01T00:00:00.000Z',
    });
  });

  it('seals with a checksum that verifies and detects tampering', () => {
    const sealed = sealEvent(
      buildEvent({ type: EventType.CtxUpdated, executionId: '7', payload: { set: { a: 1 } } }, context),
      3,
      new Date(Date.UTC(2026, 0, 1, 0, 0, 1)),
    );
    expect(sealed.stream_version).toBe(3);
    expect(envelopeChecksum(sealed)).toBe(sealed.checksum);
    const tampered = { ...sealed, payload: { set: { a: 2 } } };
    expect(envelopeChecksum(tampered)).not.toBe(sealed.checksum);
  });

  it('checksums the canonical JSON of every member but the checksum, whatever members the object has', () => {
    const sealed = sealEvent(
      buildEvent({ type: EventType.CtxUpdated, executionId: '7', payload: { set: { b: [1, { d: null, c: 'x' }], a: true } } }, context),
      3,
      new Date(Date.UTC(2026, 0, 1, 0, 0, 1)),
    );
    const { checksum, ...members } = sealed;
    expect(checksum).toBe(canonicalChecksum(members));
    // A member added or missing (an event from elsewhere) is part of what is checksummed, as canonical JSON writes it.
    const added = { ...sealed, extra: 1 } as EventEnvelope;
    const { checksum: _added, ...addedMembers } = added;
    expect(envelopeChecksum(added)).toBe(canonicalChecksum(addedMembers));
    expect(envelopeChecksum(added)).not.toBe(checksum);
    const { meta: _meta, checksum: _missing, ...fewer } = sealed;
    expect(envelopeChecksum(fewer as EventEnvelope)).toBe(canonicalChecksum(fewer));
    const { node_name: _node, ...unnamed } = members;
    expect(envelopeChecksum({ ...sealed, node_name: undefined } as unknown as EventEnvelope)).toBe(canonicalChecksum(unnamed));
  });
});

describe('rowJson', () => {
  const seal = (): EventEnvelope =>
    sealEvent(
      buildEvent({ type: EventType.CtxUpdated, executionId: '7', payload: { set: { 'quote"d': "it's", n: 1.5 } } }, context),
      1,
      new Date(Date.UTC(2026, 0, 1)),
    );

  it('writes the sealed event as the JSON object it is, checksum included', () => {
    const sealed = seal();
    expect(JSON.parse(rowJson(sealed))).toEqual(JSON.parse(JSON.stringify(sealed)));
  });

  it('writes an event again from the object once its sealed text was taken, and one it did not seal', () => {
    const sealed = seal();
    const first = rowJson(sealed);
    expect(JSON.parse(rowJson(sealed))).toEqual(JSON.parse(first));
    const copy = { ...sealed };
    expect(rowJson(copy)).toBe(JSON.stringify(copy));
  });
});
