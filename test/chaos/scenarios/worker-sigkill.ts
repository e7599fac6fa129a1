import { hold, pick, type Scenario } from '../scenario';

/**
 * SIGKILL a worker at a moment the seed picks: before, during or after a
 * row's side effect (its sink INSERT) and its frame's commit. Its frames are
 * abandoned when their lease runs out and run again whole elsewhere.
 */
export const workerSigkill: Scenario = {
  name: 'worker-sigkill',
  description: 'SIGKILL a worker before, during or after a side effect and its commit; a new worker starts',
  async inject({ cluster, random, log }) {
    await hold(Math.floor(random() * 400));
    const victim = pick(random, cluster.running('worker'));
    log(`SIGKILL worker ${victim.process.pid}`);
    await cluster.crash(victim);
    await cluster.launch('worker');
  },
};
