import type { Planned } from '../workload';
import { DEFAULT_WORKLOAD, SMOKE_WORKLOAD } from '../workload';
import type { Scenario } from '../scenario';

/**
 * A retry storm: besides the workload, executions whose step fails forever
 * (10% of all steps of the trial) back off and fail; they must fail (once),
 * and the rest must complete as usual. The fault is the load itself.
 */
export const retryStorm: Scenario = {
  name: 'retry-storm',
  description: '10% of steps failing forever with backoff beside the workload',
  workload: ({ smoke }) => {
    const base = smoke ? SMOKE_WORKLOAD : DEFAULT_WORKLOAD;
    const storm: Planned[] = Array.from({ length: smoke ? 3 : 6 }, () => ({ playbook: 'storm', expect: 'FAILED' }));
    return [...base, ...storm];
  },
  async inject() {
    // The storm runs from the start; nothing more to inject.
  },
};
