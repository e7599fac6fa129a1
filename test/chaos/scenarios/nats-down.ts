import { hold, type Scenario } from '../scenario';

/** NATS stopped for 30 s (3 s in the smoke), then started again on its store. */
export const natsDown: Scenario = {
  name: 'nats-down',
  description: 'NATS down for 30 s (3 s in the smoke), then back on the same JetStream store',
  async inject({ services, smoke, log }) {
    log('stopping NATS');
    await services.nats.stop();
    await hold(smoke ? 3_000 : 30_000);
    await services.nats.start();
    log('NATS back');
  },
};
