import { PROBE_MAX_DELAY_SECONDS } from '../constants';
import { floatParam, strParam } from '../http/params';
import { get, post, type Route } from '../http/route';
import { roundTo } from '../round-to';

/** §2: the concurrency probe used by `pagination/basic`. */
export const concurrencyRoutes: Route[] = [
  post('/api/v1/concurrency/reset', ({ state }) => {
    state.probe.reset();
    return { body: { status: 'reset' } };
  }),

  get('/api/v1/concurrency/stats', ({ state }) => ({ body: state.probe.snapshot() })),

  get('/api/v1/concurrency/probe', async ({ read, state }) => {
    const q = read({
      delay_seconds: floatParam({ default: 0, ge: 0, le: PROBE_MAX_DELAY_SECONDS }),
      label: strParam('probe'),
    });
    const { clock, probe } = state;
    const startedAt = clock.monotonicMs();
    const { requestId, activeAtStart } = probe.start(q.label, q.delay_seconds, clock.epochSeconds());
    await state.sleep(q.delay_seconds);
    const durationSeconds = (clock.monotonicMs() - startedAt) / 1000;
    const after = probe.finish(requestId, q.label, durationSeconds, clock.epochSeconds());
    return {
      body: {
        request_id: requestId,
        label: q.label,
        delay_seconds: q.delay_seconds,
        duration_seconds: roundTo(durationSeconds, 4),
        active_at_start: activeAtStart,
        started: after.started,
        completed: after.completed,
        active: after.active,
        max_active: after.max_active,
      },
    };
  }),
];
