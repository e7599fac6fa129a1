import { hold, type Scenario } from '../scenario';

/** Redis stopped for 2-5 s with retries pending, then started again empty. */
export const redisDown: Scenario = {
  name: 'redis-down',
  description: 'Redis down for 2-5 s with retries pending, back empty',
  async inject({ services, random, log }) {
    log('stopping Redis');
    await services.redis.stop();
    await hold(2_000 + Math.floor(random() * 3_000));
    await services.redis.start();
  },
};
