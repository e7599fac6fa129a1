import { buildEvent, envelopeChecksum, sealEvent } from './envelope';
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
});
