import type { Route } from '../http/route';
import { adminRoutes } from './admin.routes';
import { concurrencyRoutes } from './concurrency.routes';
import { faultRoutes } from './fault.routes';
import { healthRoutes } from './health.routes';
import { heavyRoutes } from './heavy.routes';
import { paginationRoutes } from './pagination.routes';
import { patientRecordsRoutes } from './patient-records.routes';
import { pftBatchRoutes } from './pft-batch.routes';
import { pftRoutes } from './pft.routes';
import { referenceChainRoutes } from './reference-chain.routes';

/** Every route of TEST_SERVER.md, in one table. */
export const allRoutes: readonly Route[] = [
  ...healthRoutes,
  ...concurrencyRoutes,
  ...paginationRoutes,
  ...faultRoutes,
  ...heavyRoutes,
  ...referenceChainRoutes,
  ...pftRoutes,
  ...pftBatchRoutes,
  ...patientRecordsRoutes,
  ...adminRoutes,
];
