import type { Scenario } from '../scenario';
import { schedulerSigkill } from './scheduler-sigkill';
import { workerSigkill } from './worker-sigkill';

/** Every scenario, in the order the harness runs them. */
export const SCENARIOS: Scenario[] = [workerSigkill, schedulerSigkill];
