import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Json } from '@noetl/event-kernel';
import type { ChildOutcomeRequest, NestedChildRequest } from '@noetl/runtime';
import { Type } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, ValidateNested } from 'class-validator';
import { EventErrorDto, HolderDto, StartChildDto } from './control-plane-requests.dto';

export class ChildHolderDto {
  @ApiProperty({ enum: ['command', 'frame'] })
  @IsIn(['command', 'frame'])
  kind!: 'command' | 'frame';

  @ApiProperty({ description: 'The command or frame id the worker holds' })
  @IsString()
  @IsNotEmpty()
  id!: string;
}

export class StartNestedChildDto extends StartChildDto implements NestedChildRequest {
  @ApiProperty({ type: ChildHolderDto })
  @ValidateNested()
  @Type(() => ChildHolderDto)
  holder!: ChildHolderDto;

  @ApiProperty({ description: "Distinct per call within the holder's attempt; the same key returns the same child" })
  @IsString()
  @IsNotEmpty()
  key!: string;
}

export class ChildOutcomeQueryDto extends HolderDto implements ChildOutcomeRequest {
  @ApiProperty({ type: ChildHolderDto, description: 'The command or frame whose call started the child, which the worker holds' })
  @ValidateNested()
  @Type(() => ChildHolderDto)
  holder!: ChildHolderDto;

  @ApiPropertyOptional({ description: "The child's step whose result the call returns" })
  @IsOptional()
  @IsString()
  return_step?: string;
}

export class ChildOutcomeDto {
  @ApiProperty({ enum: ['RUNNING', 'COMPLETED', 'FAILED'] })
  status!: 'RUNNING' | 'COMPLETED' | 'FAILED';

  @ApiPropertyOptional({ description: 'COMPLETED: the result the call returns' })
  result?: Json;

  @ApiPropertyOptional({ type: EventErrorDto, description: 'FAILED: why' })
  error?: EventErrorDto;
}
