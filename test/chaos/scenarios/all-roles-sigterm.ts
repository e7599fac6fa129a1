import type { Scenario } from '../scenario';

/** SIGTERM every role at once (a rolling deploy gone wrong, a node drained), then start them all again. */
export const allRolesSigterm: Scenario = {
  name: 'all-roles-sigterm',
  description: 'SIGTERM every role process at once, then start the whole deployment again',
  async inject({ cluster, log }) {
    const all = (['api', 'scheduler', 'projector', 'worker'] as const).flatMap((role) => cluster.running(role));
    log(`SIGTERM ${all.length} processes`);
    await Promise.all(all.map((target) => cluster.terminate(target)));
    await cluster.heal();
  },
};
