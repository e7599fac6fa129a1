import { join } from 'node:path';
import { hold, type Scenario } from '../scenario';

const PRELOAD = join(__dirname, '..', 'preload', 'clock-skew.js');

/**
 * The workers replaced by two whose wall clocks run minutes off (one ahead,
 * one behind; a preload of the harness): leases are measured where they are
 * granted, so a skewed worker neither loses its work early nor keeps it late.
 */
export const workerClockSkew: Scenario = {
  name: 'worker-clock-skew',
  description: "the workers' clocks skewed by minutes (one ahead, one behind)",
  async inject({ cluster, random, log }) {
    if (cluster.faulted('worker')) return;
    const minutes = 2 + Math.floor(random() * 9);
    const replaced = cluster.running('worker');
    log(`workers ${minutes} min ahead and behind`);
    await Promise.all(
      [1, -1].map((sign) =>
        cluster.launch('worker', { NODE_OPTIONS: `-r ${PRELOAD}`, CHAOS_CLOCK_SKEW_MS: String(sign * minutes * 60_000) }),
      ),
    );
    await Promise.all(replaced.map((target) => cluster.terminate(target)));
    await hold(500);
  },
};
