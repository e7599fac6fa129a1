import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Replay, type ReplayState } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { ReplayQueryDto, replayQueryOf } from './replay-query.dto';

@ApiTags('replay')
@Controller('api/replay')
export class ReplayController {
  constructor(private readonly replay: Replay) {}

  @Get('state')
  @ApiOperation({
    summary: 'Time travel: an execution as of any of its events, folded from the ledger, with a sha256 per surface and for the whole',
  })
  @ApiOkResponse({ description: 'The state, its checksums, the reducer version and upcaster digest, the position covered and the payloads it refers to' })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such execution in your tenant, or no such event of it' })
  state(@Query() query: ReplayQueryDto): Promise<ReplayState> {
    return this.replay.stateAt(replayQueryOf(query));
  }
}
