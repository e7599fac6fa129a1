import {
  Inject,
  Injectable,
  Module,
  type BeforeApplicationShutdown,
  type DynamicModule,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { NoetlConfig } from '@noetl/config';
import { createLogger, NOETL_CONFIG } from '@noetl/platform';
import { RuntimeMetrics, startDeploymentRelay, type DeploymentRelay } from '@noetl/runtime';
import { Database } from '@noetl/storage';

/**
 * Runs the deployment's relay while the application lives: started once the
 * modules are up, stopped before the database module closes the pool (its
 * ledger reader would otherwise find its connections gone).
 */
@Injectable()
class RelayLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private relay?: DeploymentRelay;

  constructor(
    @Inject(NOETL_CONFIG) private readonly config: NoetlConfig,
    private readonly database: Database,
    private readonly metrics: RuntimeMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { nats } = this.config;
    if (!nats) return;
    this.relay = await startDeploymentRelay({
      config: { ...this.config, nats },
      database: this.database,
      registry: this.metrics.registry,
      logger: createLogger(this.config.log, this.config.roles.join('+')),
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
  }
}

/**
 * The event relay (libs/runtime/src/relay): publishes the ledger's events to
 * JetStream for the projector shards. The scheduler role runs it when the
 * deployment has NATS (SchedulerModule); without NATS the projector follows
 * the ledger itself and there is nothing to relay.
 */
@Module({})
export class RelayModule {
  static forRoot(): DynamicModule {
    return { module: RelayModule, providers: [RelayLifecycle] };
  }
}
