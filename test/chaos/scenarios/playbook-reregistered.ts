import { PLAYBOOKS } from '../workload';
import type { Scenario } from '../scenario';

/**
 * A new version of the loop playbook registered while executions of the old
 * one run. The new body sinks other item numbers, so an execution that
 * switched to it mid-run would lose its items (the common invariants count
 * them). Afterwards the old body is registered again as the latest version,
 * for the next trial.
 */
export const playbookReregistered: Scenario = {
  name: 'playbook-reregistered',
  description: 'a new version of a running playbook (another body) registered mid-run',
  // No sub-playbook here: a call by path takes the latest version when it starts, by design.
  workload: () => [
    { playbook: 'loop', payload: { items: 12 }, expect: 'COMPLETED' },
    { playbook: 'loop', payload: { items: 12 }, expect: 'COMPLETED' },
  ],
  async inject({ cluster, log }) {
    const { version } = await cluster.client.register(PLAYBOOKS.loopV2);
    log(`registered chaos/loop version ${version}`);
  },
  async check({ cluster }) {
    await cluster.client.register(PLAYBOOKS.loop);
    return [];
  },
};
