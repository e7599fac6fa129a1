import type { Renderer } from '@noetl/dsl';
import type { TenantScope } from '@noetl/storage';
import type { ToolRegistry } from '@noetl/tools';
import type { Logger } from 'pino';
import type { ControlPlane } from '../control-plane/control-plane';
import type { RuntimeMetrics } from '../metrics';

/** The control plane that serves a tenant's work: in-process, that tenant's; over HTTP, the API (the key names the tenant). */
export type ControlPlaneOf = (scope: TenantScope) => ControlPlane;

export interface WorkerOptions {
  controlPlanes: ControlPlaneOf;
  /** Whose registry it reports its capacity to. */
  scope: TenantScope;
  tools: ToolRegistry;
  /** Renders that may leave the event loop (issue 25 item 7). */
  render: Renderer;
  metrics: RuntimeMetrics;
  logger: Logger;
  concurrency: number;
  leaseMs: number;
  pythonEnabled: boolean;
  /** The tool kinds it runs (NOETL_WORKER_TOOLS); absent: every kind. */
  kinds?: string[];
  /** Default: host, pid and a random suffix. */
  workerId?: string;
  /** Its pool (NOETL_WORKER_POOL): it takes only that pool's work (none: only work without a pool). */
  pool?: string;
  /** A streamed result's chunks reported and not yet consumed at which it reads no further (NOETL_STREAM_MAX_PENDING_CHUNKS; default 8). */
  streamMaxPendingChunks?: number;
  /** How often it reports its capacity to the registry (default 5 s). */
  reportEveryMs?: number;
}
