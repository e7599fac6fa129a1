import type { ScheduleDefinition, ScheduleFireState } from '@noetl/storage';
import { definitionOf, fieldsOf, fireStateAfter, scheduleSpecOf } from './schedule-definition';

const now = new Date('2025-06-01T12:00:07.000Z');
const definition = (fields: Record<string, unknown>): ScheduleDefinition => {
  const spec = scheduleSpecOf(fields);
  return definitionOf('etl/orders', null, spec, spec.paused ?? false);
};
const held: ScheduleFireState = {
  next_fire_at: new Date('2025-06-01T12:05:00.000Z'),
  next_due_at: new Date('2025-06-01T12:05:00.000Z'),
  buffered_fire_at: new Date('2025-06-01T12:00:00.000Z'),
};

describe('fireStateAfter', () => {
  it('starts a new schedule at the first fire time after now', () => {
    expect(fireStateAfter('1', undefined, definition({ interval_seconds: 60 }), now)).toEqual({
      next_fire_at: new Date('2025-06-01T12:01:00.000Z'),
      next_due_at: new Date('2025-06-01T12:01:00.000Z'),
      buffered_fire_at: null,
    });
  });

  it('keeps the fire state through a change that leaves the timing alone', () => {
    const before = { ...definition({ cron: '*/5 * * * *', overlap: 'buffer_one' }), ...held };
    expect(fireStateAfter('1', before, definition({ cron: '*/5 * * * *', overlap: 'skip', payload: { a: 1 } }), now)).toEqual(held);
  });

  it('starts over from now when the timing or the jitter changes, or a pause ends', () => {
    const before = { ...definition({ cron: '*/5 * * * *' }), ...held };
    const restarted = {
      next_fire_at: new Date('2025-06-01T12:01:00.000Z'),
      next_due_at: new Date('2025-06-01T12:01:00.000Z'),
      buffered_fire_at: null,
    };
    expect(fireStateAfter('1', before, definition({ cron: '* * * * *' }), now)).toEqual(restarted);
    expect(fireStateAfter('1', { ...before, paused: true }, definition({ cron: '*/5 * * * *' }), now)).toEqual({
      ...restarted,
      next_fire_at: new Date('2025-06-01T12:05:00.000Z'),
      next_due_at: new Date('2025-06-01T12:05:00.000Z'),
    });
    const jittered = fireStateAfter('1', before, definition({ cron: '*/5 * * * *', jitter_seconds: 30 }), now);
    expect(jittered.next_fire_at).toEqual(new Date('2025-06-01T12:05:00.000Z'));
    expect(jittered.next_due_at.getTime() - jittered.next_fire_at.getTime()).toBeLessThan(30_000);
  });

  it('drops a held fire time when paused', () => {
    const before = { ...definition({ cron: '*/5 * * * *', overlap: 'buffer_one' }), ...held };
    expect(fireStateAfter('1', before, definition({ cron: '*/5 * * * *', overlap: 'buffer_one', paused: true }), now)).toEqual({
      ...held,
      buffered_fire_at: null,
    });
  });
});

describe('fieldsOf', () => {
  it('gives back the fields a definition was read from', () => {
    const fields = {
      cron: '0 2 * * *',
      timezone: 'Europe/Berlin',
      payload: { a: 1 },
      overlap: 'allow',
      catchup_seconds: 90,
      jitter_seconds: 5,
      paused: true,
    };
    expect(fieldsOf(definition(fields))).toEqual(fields);
    expect(fieldsOf(definition({ interval_seconds: 30 }))).toEqual({
      interval_seconds: 30,
      payload: {},
      overlap: 'skip',
      catchup_seconds: 60,
      jitter_seconds: 0,
      paused: false,
    });
  });
});
