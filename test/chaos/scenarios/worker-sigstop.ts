import { hold, pick, type Scenario } from '../scenario';

/**
 * SIGSTOP a worker for longer than its leases (frames 2 s, commands 3 s),
 * then SIGCONT: its work was given to another worker meanwhile, so its late
 * commits and reports must be refused (a frame committed twice, or a sink
 * row beyond one per frame run, would show here).
 */
export const workerSigstop: Scenario = {
  name: 'worker-sigstop',
  description: 'SIGSTOP a worker past its lease, then SIGCONT; its late reports must be refused',
  async inject({ cluster, random, smoke, log }) {
    const victim = pick(random, cluster.running('worker'));
    log(`SIGSTOP worker ${victim.process.pid}`);
    cluster.pause(victim);
    await hold(smoke ? 4_500 : 6_000 + Math.floor(random() * 3_000));
    cluster.resume(victim);
  },
};
