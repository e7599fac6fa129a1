import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WORK_KINDS, type AdminReasonedRequest, type AdminRequest, type StuckQuery, type WorkKind } from '@noetl/runtime';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

const MAX_STUCK = 1000;

export class StuckQueryDto implements StuckQuery {
  @ApiPropertyOptional({ enum: WORK_KINDS, description: 'Only commands or only frames (both by default)' })
  @IsOptional()
  @IsIn(WORK_KINDS)
  kind?: WorkKind;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_STUCK, description: 'At most this many, oldest first (default 100)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_STUCK)
  limit?: number;
}

export class AdminActionDto implements AdminRequest {
  @ApiPropertyOptional({ description: 'Who acts, recorded on admin.action (default `admin`)', maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  actor?: string;

  @ApiPropertyOptional({ description: 'Why, recorded on admin.action', maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;
}

export class AdminReasonedActionDto implements AdminReasonedRequest {
  @ApiPropertyOptional({ description: 'Who acts, recorded on admin.action (default `admin`)', maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  actor?: string;

  @ApiProperty({ description: 'Why: recorded on admin.action and the error message of the failure', maxLength: 1000 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  reason!: string;
}
