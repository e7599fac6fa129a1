import { migrate } from '../../../libs/storage/src';
import { startPostgresPair, type PostgresPair } from '../../support/postgres-pair';
import type { Scenario } from '../scenario';
import { startChaosServices, type ChaosServices } from '../services';

/** The pair of the running scenario: `services` makes it, `inject` fails it over. */
let pair: PostgresPair | undefined;

/**
 * Issue 29: the ledger's PostgreSQL is a primary with a synchronous streaming
 * standby, and the deployment runs on a two-host DATABASE_URL
 * (`target_session_attrs=read-write`). The fault: the primary's machine lost
 * (its processes SIGKILLed) mid-run and the standby promoted; a new standby is
 * then made of the new primary in the lost node's place, so the next trial
 * fails over the other way. The sink (the postgres steps' target) stays on a
 * PostgreSQL of its own: the fault is the ledger's.
 */
export const postgresFailover: Scenario = {
  name: 'postgres-failover',
  description:
    'the primary of a two-node PostgreSQL (synchronous standby) SIGKILLed mid-run, the standby promoted (pg_ctl promote), the runtime on a two-host DATABASE_URL',
  steady: true,
  async services(home: string): Promise<ChaosServices> {
    // NATS, Redis and the sink's PostgreSQL as usual; the ledger on the pair.
    const base = await startChaosServices(home);
    try {
      pair = await startPostgresPair(`${home}/pair`, 'noetl');
      await migrate(pair.url, 'up');
    } catch (error) {
      await pair?.stop();
      await base.close();
      throw error;
    }
    const own = pair;
    return {
      ...base,
      postgres: {
        url: own.url,
        sinkUrl: base.postgres.sinkUrl,
        stop: () => own.stop(),
        start: async () => undefined,
      },
      close: async () => {
        await own.stop();
        await base.close();
        pair = undefined;
      },
    };
  },
  async inject({ log }) {
    if (!pair) throw new Error('postgres-failover runs on the pair its services() made');
    const start = Date.now();
    log('SIGKILL the primary, promote the standby');
    await pair.killPrimaryAndPromote();
    log(`standby promoted in ${Date.now() - start} ms; making a new standby of it`);
    const promoted = Date.now();
    await pair.rebuildStandby();
    log(`new standby streaming after ${Date.now() - promoted} ms`);
  },
};
