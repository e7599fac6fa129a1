import { Client } from 'pg';
import { hold, type Scenario } from '../scenario';

/** `pg_terminate_backend` on every connection of every role, three times in a second. */
export const postgresTerminateBackends: Scenario = {
  name: 'postgres-terminate-backends',
  description: "pg_terminate_backend on every role's connections, three times over a second",
  async inject({ services, log }) {
    const admin = new Client({ connectionString: services.postgres.url });
    await admin.connect();
    try {
      for (let round = 0; round < 3; round++) {
        const { rowCount } = await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        );
        log(`terminated ${rowCount} backends`);
        await hold(400);
      }
    } finally {
      await admin.end();
    }
  },
};
