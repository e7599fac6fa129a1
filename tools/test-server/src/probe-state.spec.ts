import { ProbeState } from './probe-state';

describe('ProbeState', () => {
  it('tracks started, completed, active and max_active across overlapping probes', () => {
    const probe = new ProbeState(10);
    expect(probe.start('a', 0.5, 1)).toEqual({ requestId: 1, activeAtStart: 1 });
    expect(probe.start('b', 0, 2)).toEqual({ requestId: 2, activeAtStart: 2 });
    expect(probe.finish(2, 'b', 0.000123456, 3)).toEqual({ started: 2, completed: 1, active: 1, max_active: 2 });
    expect(probe.finish(1, 'a', 0.5, 4)).toEqual({ started: 2, completed: 2, active: 0, max_active: 2 });

    const { recent_events: events, ...counters } = probe.snapshot();
    expect(counters).toEqual({ started: 2, completed: 2, active: 0, max_active: 2 });
    expect(events.map((e) => [e.phase, e.request_id, e.active])).toEqual([
      ['start', 1, 1],
      ['start', 2, 2],
      ['end', 2, 1],
      ['end', 1, 0],
    ]);
    expect(events[2]).toEqual({ phase: 'end', request_id: 2, label: 'b', duration_seconds: 0.0001, ts: 3, active: 1 });
    expect(events[0]).toEqual({ phase: 'start', request_id: 1, label: 'a', delay_seconds: 0.5, ts: 1, active: 1 });
  });

  it('keeps only the newest events, oldest first', () => {
    const probe = new ProbeState(3);
    for (let i = 0; i < 3; i += 1) probe.finish(probe.start('x', 0, i).requestId, 'x', 0, i);
    expect(probe.snapshot().recent_events.map((e) => `${e.phase}${e.request_id}`)).toEqual(['end2', 'start3', 'end3']);
  });

  it('never lets active go below zero and resets everything', () => {
    const probe = new ProbeState(5);
    probe.start('x', 0, 0);
    probe.reset();
    expect(probe.finish(1, 'x', 0, 0)).toEqual({ started: 0, completed: 1, active: 0, max_active: 0 });
    probe.reset();
    expect(probe.snapshot()).toEqual({ started: 0, completed: 0, active: 0, max_active: 0, recent_events: [] });
  });
});
