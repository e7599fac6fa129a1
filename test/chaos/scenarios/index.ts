import type { Scenario } from '../scenario';
import { allRolesSigterm } from './all-roles-sigterm';
import { concurrentFrameCommits } from './concurrent-frame-commits';
import { controlPlaneClockSkew } from './control-plane-clock-skew';
import { duplicateDelivery } from './duplicate-delivery';
import { embeddedSigkill } from './embedded-sigkill';
import { mixedSoak } from './mixed-soak';
import { natsDown } from './nats-down';
import { natsNodeLoss } from './nats-node-loss';
import { paginationHistory } from './pagination-history';
import { playbookReregistered } from './playbook-reregistered';
import { postgresPoolExhausted } from './postgres-pool-exhausted';
import { postgresRestart } from './postgres-restart';
import { postgresTerminateBackends } from './postgres-terminate-backends';
import { redisDown } from './redis-down';
import { redisFlush } from './redis-flush';
import { retryStorm } from './retry-storm';
import { schedulerSigkill } from './scheduler-sigkill';
import { workerClockSkew } from './worker-clock-skew';
import { workerSigkill } from './worker-sigkill';
import { workerSigstop } from './worker-sigstop';

/** Every scenario, in the order the harness runs them (the 13, with 2 and 5 split by fault, and the one-process server). */
export const SCENARIOS: Scenario[] = [
  workerSigkill,
  schedulerSigkill,
  embeddedSigkill,
  allRolesSigterm,
  workerSigstop,
  duplicateDelivery,
  postgresRestart,
  postgresTerminateBackends,
  postgresPoolExhausted,
  redisFlush,
  redisDown,
  natsDown,
  natsNodeLoss,
  workerClockSkew,
  controlPlaneClockSkew,
  concurrentFrameCommits,
  retryStorm,
  playbookReregistered,
  paginationHistory,
  mixedSoak,
];
