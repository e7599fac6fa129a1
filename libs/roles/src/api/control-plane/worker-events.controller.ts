import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { RecordCallsDto } from './control-plane-requests.dto';
import { CallsRecordedDto } from './control-plane-responses.dto';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { TenantControlPlanes } from '@noetl/platform';

@ApiTags('control-plane')
@Access('worker')
@Controller('api/events')
export class WorkerEventsController {
  constructor(private readonly controlPlane: TenantControlPlanes) {}

  @Post()
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({ summary: 'Record call.done / call.error events for a command the worker holds, ahead of its terminal report' })
  @ApiAcceptedResponse({ type: CallsRecordedDto })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such command' })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'lease_lost or already_terminal' })
  async record(@Caller() caller: Principal, @Body() body: RecordCallsDto): Promise<CallsRecordedDto> {
    await this.controlPlane
      .of(caller.scope)
      .recordCalls(body.command_id, { worker_id: body.worker_id, lease_token: body.lease_token, calls: body.calls });
    return { command_id: body.command_id, recorded: body.calls.length };
  }
}
