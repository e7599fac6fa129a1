import { HealthCheckError } from '@nestjs/terminus';
import { loadConfig } from '@noetl/config';
import { freePort } from '../../../../storage/src/free-port';
import { requireNats } from '../../../../../test/support/services';
import { NatsHealthIndicator } from './nats.health';

/**
 * Readiness of NATS given as a cluster's list of nodes (NATS_URL, issue 29):
 * up while any node answers, down when none does.
 */
describe('NatsHealthIndicator', () => {
  const check = async (natsUrl: string): Promise<unknown> => {
    const [probe] = new NatsHealthIndicator(loadConfig({ NATS_URL: natsUrl })).checks();
    return probe!();
  };

  it('is up when a node of the list answers, though the ones before it are down', async () => {
    const live = await requireNats();
    const dead = [`nats://127.0.0.1:${await freePort()}`, `nats://127.0.0.1:${await freePort()}`];
    await expect(check([...dead, live].join(','))).resolves.toEqual({ nats: { status: 'up' } });
  });

  it('is down when no node of the list answers', async () => {
    const dead = [`nats://127.0.0.1:${await freePort()}`, `nats://127.0.0.1:${await freePort()}`];
    await expect(check(dead.join(','))).rejects.toBeInstanceOf(HealthCheckError);
  });
});
