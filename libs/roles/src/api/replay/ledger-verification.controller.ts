import { Controller, Get, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { TenantReplays } from '@noetl/platform';
import type { LedgerVerificationView, Principal } from '@noetl/runtime';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { ApiErrorDto } from '../errors/api-error.dto';

export class LedgerVerificationDto implements LedgerVerificationView {
  @ApiProperty()
  execution_id!: string;

  @ApiProperty({ description: 'Whether every event is as it was written and none is missing' })
  ok!: boolean;

  @ApiProperty({ description: 'Events checked' })
  events!: number;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The position (event id) of the first event found changed, or after a removed one',
  })
  first_bad_position!: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'What was found there' })
  reason!: string | null;
}

/** The tamper check of an execution's ledger (issue 25 item 3): checksums, the hash chain, and its end against its projection. */
@ApiTags('replay')
@Access('viewer')
@Controller('api/executions')
export class LedgerVerificationController {
  constructor(private readonly replay: TenantReplays) {}

  @Get(':id/verify')
  @ApiOperation({
    summary: "Whether an execution's ledger is what was written: each event's checksum, the hash chain, and no event missing",
  })
  @ApiOkResponse({ type: LedgerVerificationDto })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such execution in your tenant' })
  verify(@Caller() caller: Principal, @Param('id') id: string): Promise<LedgerVerificationView> {
    return this.replay.of(caller.scope).verify(id);
  }
}
