import { join } from 'node:path';
import { hold, type Scenario } from '../scenario';

const PRELOAD = join(__dirname, '..', 'preload', 'duplicate-delivery.js');

/**
 * Every NATS message (offers, notifications, JetStream events) and every
 * BullMQ job delivered twice: the scheduler and the workers are replaced by
 * processes that publish everything twice (a preload of the harness, not a
 * setting of the runtime) for the scenario's trials.
 */
export const duplicateDelivery: Scenario = {
  name: 'duplicate-delivery',
  description: 'every NATS message and BullMQ job delivered twice (scheduler and workers publish twice)',
  async inject({ cluster, log }) {
    if (cluster.faulted('scheduler')) return;
    const replaced = [...cluster.running('scheduler'), ...cluster.running('worker')];
    const env = { NODE_OPTIONS: `-r ${PRELOAD}` };
    log(`replacing ${replaced.length} processes with ones that publish twice`);
    await Promise.all([cluster.launch('scheduler', env), ...cluster.running('worker').map(() => cluster.launch('worker', env))]);
    await Promise.all(replaced.map((target) => cluster.terminate(target)));
    await hold(500);
  },
};
