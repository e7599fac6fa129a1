import { Injectable, type ExecutionContext } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';

/**
 * The throttler for HTTP requests only. A global guard runs on the NATS
 * handlers of the same process too (the scheduler's and worker's
 * notifications between the deployment's own services), where there is no
 * request to count and, while the app still boots, no throttler configured.
 */
@Injectable()
export class HttpThrottlerGuard extends ThrottlerGuard {
  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(context.getType() !== 'http');
  }
}
