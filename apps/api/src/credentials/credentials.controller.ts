import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Inject, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CREDENTIAL_STORE } from '@noetl/platform';
import type { CredentialStore, CredentialSummary } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { CredentialListDto, CredentialSummaryDto, PutCredentialDto } from './credential.dto';

/** Credentials are written and listed here, never read back: only a worker holding a lease resolves one. */
@ApiTags('credentials')
@Controller('api/credentials')
export class CredentialsController {
  constructor(@Inject(CREDENTIAL_STORE) private readonly credentials: CredentialStore) {}

  @Post()
  @ApiOperation({ summary: 'Create or replace a credential (encrypted at rest)' })
  @ApiCreatedResponse({ type: CredentialSummaryDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'Invalid name or body' })
  @ApiServiceUnavailableResponse({ type: ApiErrorDto, description: 'NOETL_ENCRYPTION_KEY is not set (credentials_locked)' })
  put(@Body() body: PutCredentialDto): Promise<CredentialSummary> {
    return this.credentials.put(body);
  }

  @Get()
  @ApiOperation({ summary: 'Every credential, without its data' })
  @ApiOkResponse({ type: CredentialListDto })
  async list(): Promise<CredentialListDto> {
    return { credentials: await this.credentials.list() };
  }

  @Get(':name')
  @ApiOperation({ summary: 'One credential, without its data' })
  @ApiOkResponse({ type: CredentialSummaryDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  get(@Param('name') name: string): Promise<CredentialSummary> {
    return this.credentials.get(name);
  }

  @Delete(':name')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Delete a credential' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ type: ApiErrorDto })
  delete(@Param('name') name: string): Promise<void> {
    return this.credentials.delete(name);
  }
}
