import type { Scenario } from '../scenario';

/** FLUSHALL while durable retries are pending: their BullMQ jobs vanish, the Postgres timers must still fire. */
export const redisFlush: Scenario = {
  name: 'redis-flush',
  description: 'Redis flushed (FLUSHALL) with retries pending',
  async inject({ services, log }) {
    log('FLUSHALL');
    await services.redis.flush();
  },
};
