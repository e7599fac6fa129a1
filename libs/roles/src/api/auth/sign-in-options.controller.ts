import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { NOETL_CONFIG, type NoetlConfig } from '@noetl/platform';
import { Access } from './access.decorator';

export class OidcSignInDto {
  @ApiProperty({ description: 'The issuer (NOETL_OIDC_ISSUER): the page reads its /.well-known/openid-configuration' })
  issuer!: string;

  @ApiProperty({
    description:
      "The web UI's public client at the issuer (NOETL_OIDC_CLIENT_ID); the page signs in with the authorization code flow and PKCE",
  })
  client_id!: string;
}

export class SignInOptionsDto {
  @ApiPropertyOptional({
    type: OidcSignInDto,
    nullable: true,
    description: 'Present when NOETL_OIDC_ISSUER and NOETL_OIDC_CLIENT_ID are set',
  })
  oidc!: OidcSignInDto | null;
}

/** What the sign-in page may offer besides an API key: public, asked before anyone has signed in. */
@ApiTags('auth')
@Access('public')
@Controller('api/auth')
export class SignInOptionsController {
  constructor(@Inject(NOETL_CONFIG) private readonly config: NoetlConfig) {}

  @Get('sign-in-options')
  @ApiOperation({
    summary: 'How the web UI may sign in: with an API key always, and with the identity provider when OIDC is configured for it',
  })
  @ApiOkResponse({ type: SignInOptionsDto })
  options(): SignInOptionsDto {
    const oidc = this.config.auth.oidc;
    return { oidc: oidc?.issuer && oidc.clientId ? { issuer: oidc.issuer, client_id: oidc.clientId } : null };
  }
}
