import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { RuntimeMetrics } from '@noetl/runtime';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator';

@ApiTags('operations')
@Access('metrics')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly runtimeMetrics: RuntimeMetrics) {}

  @Get()
  @ApiOperation({ summary: 'Prometheus metrics of this process' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format', schema: { type: 'string' } })
  async metrics(@Res({ passthrough: true }) response: Response): Promise<string> {
    const { registry } = this.runtimeMetrics;
    response.type(registry.contentType);
    return registry.metrics();
  }
}
