import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { LocalControlPlane } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { RecordCallsDto } from './control-plane-requests.dto';
import { CallsRecordedDto } from './control-plane-responses.dto';

@ApiTags('control-plane')
@Controller('api/events')
export class WorkerEventsController {
  constructor(private readonly controlPlane: LocalControlPlane) {}

  @Post()
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({ summary: "Record call.done / call.error events for a command the worker holds, ahead of its terminal report" })
  @ApiAcceptedResponse({ type: CallsRecordedDto })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such command' })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'lease_lost or already_terminal' })
  async record(@Body() body: RecordCallsDto): Promise<CallsRecordedDto> {
    await this.controlPlane.recordCalls(body.command_id, { worker_id: body.worker_id, lease_token: body.lease_token, calls: body.calls });
    return { command_id: body.command_id, recorded: body.calls.length };
  }
}
