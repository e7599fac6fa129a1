import { join } from 'node:path';
import { hold, type Scenario } from '../scenario';

const PRELOAD = join(__dirname, '..', 'preload', 'clock-skew.js');

/**
 * The api (which grants leases) replaced by one whose wall clock runs
 * minutes behind, the scheduler (whose reaper finds expired leases) by one
 * minutes ahead: leases must be granted and expired on the database's clock,
 * or every lease is over when it is granted and every frame is reaped from
 * its live worker again and again.
 */
export const controlPlaneClockSkew: Scenario = {
  name: 'control-plane-clock-skew',
  description: "the api's clock minutes behind and the scheduler's minutes ahead (leases are granted and reaped on the database's clock)",
  async inject({ cluster, random, log }) {
    if (cluster.faulted('api')) return;
    const minutes = 2 + Math.floor(random() * 9);
    const skew = (sign: number) => ({ NODE_OPTIONS: `-r ${PRELOAD}`, CHAOS_CLOCK_SKEW_MS: String(sign * minutes * 60_000) });
    log(`api ${minutes} min behind, scheduler ${minutes} min ahead`);
    const [api] = cluster.running('api');
    const [scheduler] = cluster.running('scheduler');
    await Promise.all([cluster.terminate(api!), cluster.terminate(scheduler!)]);
    await cluster.launch('api', skew(-1));
    await cluster.launch('scheduler', skew(1));
    await hold(500);
  },
};
