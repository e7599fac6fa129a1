import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Swagger's view of the one error body (ApiErrorBody). */
export class ApiErrorDto {
  @ApiProperty({ description: 'Stable machine-readable code', example: 'not_found' })
  code!: string;

  @ApiProperty({ description: 'What went wrong, for a person' })
  message!: string;

  @ApiPropertyOptional({ description: 'More about the error (e.g. each validation message)' })
  details?: unknown;
}

export class PlaybookProblemDto {
  @ApiProperty({ description: 'Where in the playbook, as a dotted path', example: 'workflow[1].next[0].step' })
  path!: string;

  @ApiPropertyOptional({ description: '1-based line in the YAML' })
  line?: number;

  @ApiPropertyOptional({ description: '1-based column in the YAML' })
  column?: number;

  @ApiProperty()
  message!: string;
}

export class InvalidPlaybookErrorDto {
  @ApiProperty({ example: 'invalid_playbook' })
  code!: string;

  @ApiProperty()
  message!: string;

  @ApiProperty({ type: [PlaybookProblemDto] })
  errors!: PlaybookProblemDto[];
}
