import type { Scenario } from '../scenario';

const FRAMES = 20;

/**
 * One loop of 20 one-row frames all in flight at once over the baseline
 * workers' 8 runner slots and 12 more (two workers of six slots started for
 * the scenario): the frames finish together and their commits race;
 * loop.done must be appended once.
 */
export const concurrentFrameCommits: Scenario = {
  name: 'concurrent-frame-commits',
  description: '20 frames of one loop committed concurrently by 20 runner slots on 4 worker processes',
  workload: () => [],
  async inject({ cluster, startWorkload, log }) {
    if (!cluster.faulted('worker'))
      await Promise.all(Array.from({ length: 2 }, () => cluster.launch('worker', { NOETL_WORKER_CONCURRENCY: '6' })));
    log(`${FRAMES} frames in flight`);
    await startWorkload([
      { playbook: 'wide', payload: { items: FRAMES }, expect: 'COMPLETED' },
      { playbook: 'wide', payload: { items: FRAMES }, expect: 'COMPLETED' },
    ]);
  },
};
