import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { playbookSchema } from '@noetl/dsl';
import { Access } from '../auth/access.decorator';

/** The playbook JSON Schema, for editors: open, as it holds nothing of any tenant (docs/playbook.schema.json is the same document). */
@ApiTags('schema')
@Access('public')
@Controller('api/schema')
export class SchemaController {
  private readonly playbook = playbookSchema();

  @Get('playbook')
  @Header('Content-Type', 'application/schema+json')
  @ApiOperation({ summary: 'The JSON Schema of a playbook (for editors: # yaml-language-server: $schema=<this URL>)' })
  @ApiOkResponse({ description: 'A JSON Schema (draft-07)' })
  playbookSchema(): object {
    return this.playbook;
  }
}
