import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal, ReplayDiff, ReplayState } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { ReplayDiffDto } from './replay-diff.dto';
import { ReplayDiffQueryDto, ReplayQueryDto, replayQueryOf } from './replay-query.dto';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { TenantReplays } from '@noetl/platform';

@ApiTags('replay')
@Access('viewer')
@Controller('api/replay')
export class ReplayController {
  constructor(private readonly replay: TenantReplays) {}

  @Get('state')
  @ApiOperation({
    summary: 'Time travel: an execution as of any of its events, folded from the ledger, with a sha256 per surface and for the whole',
  })
  @ApiOkResponse({
    description: 'The state, its checksums, the reducer version and upcaster digest, the position covered and the payloads it refers to',
  })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such execution in your tenant, or no such event of it' })
  state(@Caller() caller: Principal, @Query() query: ReplayQueryDto): Promise<ReplayState> {
    return this.replay.of(caller.scope).stateAt(replayQueryOf(query));
  }

  @Get('diff')
  @ApiOperation({ summary: "What changed in an execution's state between two positions of its ledger, path by path (noetl replay --diff)" })
  @ApiOkResponse({ type: ReplayDiffDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such execution in your tenant' })
  diff(@Caller() caller: Principal, @Query() query: ReplayDiffQueryDto): Promise<ReplayDiff> {
    return this.replay
      .of(caller.scope)
      .diff(query.execution_id, { asOfPosition: query.from_position }, { asOfPosition: query.to_position });
  }
}
