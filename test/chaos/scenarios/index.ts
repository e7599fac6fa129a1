import type { Scenario } from '../scenario';
import { allRolesSigterm } from './all-roles-sigterm';
import { concurrentFrameCommits } from './concurrent-frame-commits';
import { controlPlaneClockSkew } from './control-plane-clock-skew';
import { duplicateDelivery } from './duplicate-delivery';
import { embeddedSigkill } from './embedded-sigkill';
import { mixedSoak } from './mixed-soak';
import { natsDown } from './nats-down';
import { natsNodeLoss } from './nats-node-loss';
import { networkPartition } from './network-partition';
import { paginationHistory } from './pagination-history';
import { playbookReregistered } from './playbook-reregistered';
import { postgresFailover } from './postgres-failover';
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

/** Every scenario, in the order the harness runs them (issue 14's 13, with 2 and 5 split by fault, the one-process server, and issue 29's three). */
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
  workerClockSkew,
  controlPlaneClockSkew,
  concurrentFrameCommits,
  retryStorm,
  playbookReregistered,
  paginationHistory,
  mixedSoak,
  // On services of their own (a PostgreSQL pair, a NATS cluster, proxies on the links): last, so the shared
  // deployment is started once.
  postgresFailover,
  natsNodeLoss,
  networkPartition,
];
