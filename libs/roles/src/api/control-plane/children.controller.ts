import { Body, Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal, ChildOutcomeView } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { ChildStartedDto } from './control-plane-responses.dto';
import { ChildOutcomeDto, ChildOutcomeQueryDto, StartNestedChildDto } from './children.dto';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { TenantControlPlanes } from '@noetl/platform';

/** Child executions started by `playbook` calls inside a pipeline or a loop body (the worker holds its lease and waits). */
@ApiTags('control-plane')
@Access('worker')
@Controller('api/children')
export class ChildrenController {
  constructor(private readonly controlPlane: TenantControlPlanes) {}

  @Post()
  @ApiOperation({ summary: 'Start the child of a playbook call made by a worker holding a command or frame (idempotent per key)' })
  @ApiCreatedResponse({ type: ChildStartedDto })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such command, frame or playbook' })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'The worker does not hold the command or frame' })
  async start(@Caller() caller: Principal, @Body() body: StartNestedChildDto): Promise<ChildStartedDto> {
    const { execution_id } = await this.controlPlane.of(caller.scope).startNestedChild(body);
    return { execution_id };
  }

  @Post(':id/outcome')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Where a child stands: RUNNING, or its outcome as the parent's call sees it" })
  @ApiOkResponse({ type: ChildOutcomeDto })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such execution' })
  outcome(@Caller() caller: Principal, @Param('id') id: string, @Body() body: ChildOutcomeQueryDto): Promise<ChildOutcomeView> {
    return this.controlPlane.of(caller.scope).childOutcome(id, body);
  }
}
