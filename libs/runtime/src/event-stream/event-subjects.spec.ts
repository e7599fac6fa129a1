import { eventSubject, shardFilter, shardOf, shardSubject } from './event-subjects';

describe('event subjects', () => {
  it('names an execution under noetl.events.<tenant>.<org>.<execution>', () => {
    expect(eventSubject('default', 'main', '123')).toBe('noetl.events.default.main.123');
  });

  it('keeps separators and wildcards out of the tokens', () => {
    expect(eventSubject('acme.eu *>', 'o', '1')).toBe('noetl.events.acme_eu___.o.1');
    expect(eventSubject('', '', '1')).toBe('noetl.events._._.1');
  });

  it('publishes on the shard that owns the execution, which that shard alone consumes', () => {
    const subject = shardSubject(eventSubject('t', 'o', '42'), shardOf('42', 4));
    expect(subject).toMatch(/^noetl\.events\.t\.o\.42\.[0-3]$/);
    expect(shardFilter(shardOf('42', 4), { tenantId: 't', organizationId: 'o' })).toBe(`noetl.events.t.o.*.${shardOf('42', 4)}`);
  });

  it('spreads executions over the shards and never moves one (the relay and every projector agree)', () => {
    const counts = [0, 0, 0, 0];
    for (let id = 1; id <= 4000; id++) counts[shardOf(String(1_000_000_000_000n + BigInt(id) * 4096n), 4)]! += 1;
    for (const count of counts) expect(count).toBeGreaterThan(850);
    expect(shardOf('1234567890123', 8)).toBe(shardOf('1234567890123', 8));
    expect([shardOf('1', 3), shardOf('2', 3), shardOf('3', 3)]).toEqual(GOLDEN_SHARDS);
  });
});

/** Pinned: a change to shardOf would silently move executions between projector shards. */
const GOLDEN_SHARDS = [0, 2, 0];
