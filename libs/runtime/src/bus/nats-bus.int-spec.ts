import { randomUUID } from 'node:crypto';
import type { JsonObject } from '@noetl/event-kernel';
import { requireNats } from '../../../../test/support/services';
import { waitFor } from '../../../../test/support/wait-for';
import { NatsBus } from './nats-bus';

describe('NatsBus', () => {
  let url: string;
  let publisher: NatsBus;
  let consumerA: NatsBus;
  let consumerB: NatsBus;
  const errors: unknown[] = [];

  beforeAll(async () => {
    url = await requireNats();
    const onError = (error: unknown): void => void errors.push(error);
    // Separate connections, as separate services would have.
    [publisher, consumerA, consumerB] = await Promise.all([
      NatsBus.connect(url, { name: 'nats-bus-spec-publisher', onError }),
      NatsBus.connect(url, { name: 'nats-bus-spec-a', onError }),
      NatsBus.connect(url, { name: 'nats-bus-spec-b', onError }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([publisher?.close(), consumerA?.close(), consumerB?.close()]);
  });

  afterEach(() => {
    expect(errors).toEqual([]);
  });

  const uniqueSubject = (): string => `noetl.spec.${randomUUID()}`;

  it('delivers every message to every plain subscriber', async () => {
    const subject = uniqueSubject();
    const seenByA: JsonObject[] = [];
    const seenByB: JsonObject[] = [];
    consumerA.subscribe(subject, (m) => seenByA.push(m));
    consumerB.subscribe(subject, (m) => seenByB.push(m));
    await Promise.all([consumerA.flush(), consumerB.flush()]);

    publisher.publish(subject, { n: 1, execution_id: '42' });
    publisher.publish(subject, { n: 2 });

    await waitFor(async () => seenByA.length === 2 && seenByB.length === 2, { description: 'both subscribers to get both messages' });
    expect(seenByA).toEqual([{ n: 1, execution_id: '42' }, { n: 2 }]);
    expect(seenByB).toEqual(seenByA);
  });

  it('delivers each message to one member of a queue group', async () => {
    const subject = uniqueSubject();
    const seenByA: number[] = [];
    const seenByB: number[] = [];
    consumerA.subscribe(subject, (m) => seenByA.push(m.n as number), { queue: 'workers' });
    consumerB.subscribe(subject, (m) => seenByB.push(m.n as number), { queue: 'workers' });
    await Promise.all([consumerA.flush(), consumerB.flush()]);

    const sent = Array.from({ length: 40 }, (_, n) => n);
    for (const n of sent) publisher.publish(subject, { n });

    // Round trips in order: the server has routed every publish, then each consumer has read what it was sent.
    await publisher.flush();
    await Promise.all([consumerA.flush(), consumerB.flush()]);
    expect([...seenByA, ...seenByB].sort((x, y) => x - y)).toEqual(sent);
    expect(seenByA.length).toBeGreaterThan(0);
    expect(seenByB.length).toBeGreaterThan(0);
  });

  it('keeps the subscription alive when a handler throws or rejects', async () => {
    const subject = uniqueSubject();
    const handled: number[] = [];
    const reported: unknown[] = [];
    const bus = await NatsBus.connect(url, { onError: (error) => void reported.push(error) });
    try {
      bus.subscribe(subject, (m) => {
        handled.push(m.n as number);
        if (m.n === 1) throw new Error('handler broke');
      });
      bus.subscribe(subject, async (m) => {
        if (m.n === 2) throw new Error('async handler broke');
      });
      await bus.flush();

      for (const n of [1, 2, 3]) publisher.publish(subject, { n });

      await waitFor(async () => handled.length === 3 && reported.length === 2, { description: 'three deliveries and two reported failures' });
      expect(handled).toEqual([1, 2, 3]);
      expect(reported.map((e) => (e as Error).message).sort()).toEqual(['async handler broke', 'handler broke']);
    } finally {
      await bus.close();
    }
  });

  it('stops delivering after unsubscribe', async () => {
    const subject = uniqueSubject();
    const stopped: number[] = [];
    const kept: number[] = [];
    const unsubscribe = consumerA.subscribe(subject, (m) => stopped.push(m.n as number));
    consumerA.subscribe(subject, (m) => kept.push(m.n as number));
    await consumerA.flush();

    publisher.publish(subject, { n: 1 });
    await waitFor(async () => stopped.length === 1 && kept.length === 1, { description: 'the first message' });
    unsubscribe();
    await consumerA.flush();
    publisher.publish(subject, { n: 2 });

    // The still-subscribed handler on the same connection proves message 2 arrived.
    await waitFor(async () => kept.length === 2, { description: 'the second message on the kept subscription' });
    expect(stopped).toEqual([1]);
  });

  it('ignores a publish or subscribe after close instead of throwing', async () => {
    const bus = await NatsBus.connect(url);
    await bus.close();

    expect(() => bus.publish(uniqueSubject(), { n: 1 })).not.toThrow();
    expect(() => bus.subscribe(uniqueSubject(), () => undefined)()).not.toThrow();
    await expect(bus.close()).resolves.toBeUndefined();
  });

  it('names the URL when the server is unreachable', async () => {
    await expect(NatsBus.connect('nats://127.0.0.1:1')).rejects.toThrow('NATS is unreachable at nats://127.0.0.1:1');
  });
});
