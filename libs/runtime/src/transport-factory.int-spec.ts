import { randomUUID } from 'node:crypto';
import { loadConfig } from '@noetl/config';
import type { JsonObject } from '@noetl/event-kernel';
import { requireNats } from '../../../test/support/services';
import { waitFor } from '../../../test/support/wait-for';
import { InProcessBus } from './bus/in-process-bus';
import { NatsBus } from './bus/nats-bus';
import { HttpControlPlane } from './control-plane/http-control-plane';
import { createBus, createRemoteControlPlane } from './transport-factory';

describe('transport factory', () => {
  it('uses the in-process bus when NATS_URL is not set', async () => {
    const bus = await createBus(loadConfig({}));
    expect(bus).toBeInstanceOf(InProcessBus);
    await bus.close();
  });

  it('connects a working NATS bus when NATS_URL is set', async () => {
    const bus = await createBus(loadConfig({ NATS_URL: await requireNats() }));
    try {
      expect(bus).toBeInstanceOf(NatsBus);
      const subject = `noetl.spec.${randomUUID()}`;
      const seen: JsonObject[] = [];
      bus.subscribe(subject, (m) => seen.push(m));
      await (bus as NatsBus).flush();
      bus.publish(subject, { execution_id: '1' });
      await waitFor(async () => seen.length === 1, { description: 'the message back' });
      expect(seen).toEqual([{ execution_id: '1' }]);
    } finally {
      await bus.close();
    }
  });

  it('gives an HTTP control plane only when NOETL_SERVER_URL is set', async () => {
    expect(createRemoteControlPlane(loadConfig({}))).toBeUndefined();
    const remote = createRemoteControlPlane(loadConfig({ NOETL_SERVER_URL: 'http://127.0.0.1:8082/' }));
    expect(remote).toBeInstanceOf(HttpControlPlane);
    await remote?.close();
  });
});
