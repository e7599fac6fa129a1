import type { OffloadingRenderer } from '@noetl/dsl';
import type { TenantScope } from '@noetl/storage';
import type { ToolRegistry } from '@noetl/tools';
import type { Logger } from 'pino';
import type { ControlPlane } from '../control-plane/control-plane';
import type { EngineOptions } from '../engine-types';
import type { RuntimeMetrics } from '../metrics';
import { WORKER_REPORT_MS } from '../tenants/shared-parts';
import { Worker } from './worker';

/** The worker of a process (NOETL_WORKER_*), reporting each tenant's work to the control plane `controlPlanes` gives for it. */
export function processWorker(
  { config, workerId }: EngineOptions,
  parts: {
    controlPlanes: (scope: TenantScope) => ControlPlane;
    tools: ToolRegistry;
    render: OffloadingRenderer;
    metrics: RuntimeMetrics;
    logger: Logger;
  },
): Worker {
  return new Worker({
    ...(workerId ? { workerId } : {}),
    controlPlanes: parts.controlPlanes,
    scope: config.tenancy,
    tools: parts.tools,
    render: parts.render,
    metrics: parts.metrics,
    logger: parts.logger.child({ role: 'worker' }),
    concurrency: config.worker.concurrency,
    leaseMs: config.worker.leaseMs,
    streamMaxPendingChunks: config.worker.streamMaxPendingChunks,
    pythonEnabled: config.worker.python,
    ...(config.worker.tools ? { kinds: config.worker.tools } : {}),
    ...(config.worker.pool ? { pool: config.worker.pool } : {}),
    reportEveryMs: WORKER_REPORT_MS,
  });
}
