import { readNotification } from './wire-notifications';

const scope = { tenant_id: 't1', organization_id: 'o1' };

describe('readNotification', () => {
  it('reads each kind with the fields its handler uses, and nothing else', () => {
    expect(readNotification.execution({ execution_id: '7', ...scope, extra: 1 })).toEqual({ execution_id: '7', ...scope });
    expect(readNotification.work({ command_id: '9', execution_id: '7', ...scope, alone: true, traceparent: '00-a-b-01' })).toEqual({
      command_id: '9',
      execution_id: '7',
      ...scope,
      alone: true,
      traceparent: '00-a-b-01',
    });
    expect(readNotification.frames({ stage_id: '5', execution_id: '7', ...scope })).toEqual({ stage_id: '5', execution_id: '7', ...scope });
  });

  it('keeps `alone` only when it is true', () => {
    expect(readNotification.work({ command_id: '9', execution_id: '7', ...scope, alone: 'yes' })).not.toHaveProperty('alone');
    expect(readNotification.work({ command_id: '9', execution_id: '7', ...scope, alone: false })).not.toHaveProperty('alone');
  });

  it('drops a message without its tenant, its ids, or that is no object', () => {
    expect(readNotification.execution({ execution_id: '7' })).toBeUndefined();
    expect(readNotification.execution({ execution_id: 7, ...scope })).toBeUndefined();
    expect(readNotification.work({ execution_id: '7', ...scope })).toBeUndefined();
    expect(readNotification.work({ command_id: '9', ...scope })).toBeUndefined();
    expect(readNotification.frames({ stage_id: '5', tenant_id: 't1', execution_id: '7' })).toBeUndefined();
    for (const wire of [null, 'noetl', 42, undefined]) expect(readNotification.execution(wire)).toBeUndefined();
  });
});
