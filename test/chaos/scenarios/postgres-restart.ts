import { hold, type Scenario } from '../scenario';

/** PostgreSQL stopped (fast shutdown) mid-run and started again on the same data and port. */
export const postgresRestart: Scenario = {
  name: 'postgres-restart',
  description: 'PostgreSQL stopped mid-run and started again after 1-3 s',
  async inject({ services, random, log }) {
    log('stopping PostgreSQL');
    await services.postgres.stop();
    await hold(1_000 + Math.floor(random() * 2_000));
    await services.postgres.start();
    log('PostgreSQL back');
  },
};
