import { ApiProperty } from '@nestjs/swagger';
import type { JsonObject } from '@noetl/event-kernel';
import type { CredentialInput, CredentialSummary } from '@noetl/runtime';
import { IsNotEmpty, IsString } from 'class-validator';
import { RawJson } from '../input/raw-json';

export class PutCredentialDto implements CredentialInput {
  @ApiProperty({ description: '1-200 of A-Z a-z 0-9 _ . : -', example: 'pg_main', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  name!: string;

  @ApiProperty({ description: 'What the data is for', example: 'postgres' })
  @IsString()
  @IsNotEmpty()
  type!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Encrypted at rest; never returned by this API' })
  @RawJson({ object: true })
  data!: JsonObject;
}

export class CredentialSummaryDto implements CredentialSummary {
  @ApiProperty()
  name!: string;

  @ApiProperty()
  type!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class CredentialListDto {
  @ApiProperty({ type: [CredentialSummaryDto] })
  credentials!: CredentialSummaryDto[];
}
