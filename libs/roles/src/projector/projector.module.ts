import { Module } from '@nestjs/common';

/**
 * The projector role (libs/runtime/src/projection): the engine of a process
 * with this role folds the ledger's events into the projection rows, its
 * shard of them, fed from JetStream with NATS (StreamProjector) or from the
 * ledger's tail without (LedgerFeed). Nothing reaches it by notification, so
 * the module declares no handlers; a projector process serves only its
 * probes and metrics (bootRole).
 */
@Module({})
export class ProjectorModule {}
