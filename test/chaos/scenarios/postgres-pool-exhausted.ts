import { Client } from 'pg';
import { hold, type Scenario } from '../scenario';

/**
 * Every connection slot of the server taken for 2-4 s: a role that needs a
 * new connection (its pool grows, a connection was dropped) waits or fails,
 * and must retry rather than lose or strand work.
 */
export const postgresPoolExhausted: Scenario = {
  name: 'postgres-pool-exhausted',
  description: 'every PostgreSQL connection slot taken for 2-4 s',
  async inject({ services, random, log }) {
    const hogs: Client[] = [];
    try {
      for (;;) {
        const hog = new Client({ connectionString: services.postgres.url, connectionTimeoutMillis: 2_000 });
        hog.on('error', () => undefined);
        try {
          await hog.connect();
        } catch {
          break;
        }
        hogs.push(hog);
      }
      log(`holding ${hogs.length} connections`);
      await hold(2_000 + Math.floor(random() * 2_000));
    } finally {
      await Promise.all(hogs.map((hog) => hog.end().catch(() => undefined)));
    }
  },
};
