import { Module } from '@nestjs/common';

/** The projector role's module: the engine the role boots (AppRootModule) runs the projector; this module adds nothing to it yet. */
@Module({})
export class ProjectorModule {}
