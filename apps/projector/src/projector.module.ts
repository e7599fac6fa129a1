import { Module } from '@nestjs/common';

/** The projector role. Its work (folding the event stream into projections) is not built yet: the app boots and serves its probes. */
@Module({})
export class ProjectorModule {}
