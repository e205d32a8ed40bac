import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IDENTITY_PROVIDER_LIMITS, type IdentityProviderInput, type IdentityProviderView } from '@app/identity';
import { MEMBERSHIP_ROLES, type MembershipRole } from '@app/tenancy';

const { text: TEXT, clientSecret: SECRET } = IDENTITY_PROVIDER_LIMITS;

export class RoleMappingDto {
  @ApiProperty({ description: 'A group name as the groups claim lists it' })
  @IsString({ message: 'roleMappings[].group must be a string' })
  @IsNotEmpty({ message: 'roleMappings[].group must not be empty' })
  @MaxLength(TEXT, { message: `roleMappings[].group must be at most ${TEXT} characters` })
  group: string;

  @ApiProperty({ enum: MEMBERSHIP_ROLES, description: 'The role members of that group get' })
  @IsIn(MEMBERSHIP_ROLES, { message: `roleMappings[].role must be one of: ${MEMBERSHIP_ROLES.join(', ')}` })
  role: MembershipRole;
}

export class IdJagClientDto {
  @ApiProperty({ description: "The AI client's client_id at this service (an ID-JAG's client_id)" })
  @IsString({ message: 'idJagClients[].clientId must be a string' })
  @IsNotEmpty({ message: 'idJagClients[].clientId must not be empty' })
  @MaxLength(TEXT, { message: `idJagClients[].clientId must be at most ${TEXT} characters` })
  clientId: string;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: "The project its trades open (a project of this organisation); null: not chosen yet (trades are refused)" })
  @ValidateIf((o: IdJagClientDto) => o.projectId !== null)
  @IsString({ message: 'idJagClients[].projectId must be a project id or null' })
  projectId: string | null;
}

/** `PUT …/identity-provider`: the whole settings (what is left out takes its default). */
export class PutIdentityProviderDto implements IdentityProviderInput {
  @ApiProperty({ example: 'https://idp.example.com', description: "The OpenID Connect issuer; its discovery document and key set are fetched when saved" })
  @IsString({ message: 'issuer must be a string' })
  @IsNotEmpty({ message: 'issuer must not be empty' })
  @MaxLength(TEXT, { message: `issuer must be at most ${TEXT} characters` })
  issuer: string;

  @ApiProperty({ description: "This service's client id at the IdP" })
  @IsString({ message: 'clientId must be a string' })
  @IsNotEmpty({ message: 'clientId must not be empty' })
  @MaxLength(TEXT, { message: `clientId must be at most ${TEXT} characters` })
  clientId: string;

  @ApiPropertyOptional({
    writeOnly: true,
    description: 'The client secret (write-only: never returned). Required when connecting or changing the issuer; left out, the stored one is kept',
  })
  @IsOptional()
  @IsString({ message: 'clientSecret must be a string' })
  @IsNotEmpty({ message: 'clientSecret must not be empty (leave it out to keep the stored one)' })
  @MaxLength(SECRET, { message: `clientSecret must be at most ${SECRET} characters` })
  clientSecret?: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['example.com'],
    description: 'Email domains the organisation claims (pending until verified; public mail domains refused). Domains left out lose their claim',
  })
  @IsOptional()
  @IsArray({ message: 'emailDomains must be an array of domain names' })
  @ArrayMaxSize(IDENTITY_PROVIDER_LIMITS.emailDomains, { message: `emailDomains may list at most ${IDENTITY_PROVIDER_LIMITS.emailDomains} domains` })
  @IsString({ each: true, message: 'emailDomains must contain domain names (strings)' })
  @MaxLength(253, { each: true, message: 'each domain in emailDomains must be at most 253 characters' })
  emailDomains?: string[];

  @ApiPropertyOptional({ enum: ['member'], default: 'member', description: 'The role of people who arrive through single sign-on; never admin' })
  @IsOptional()
  @IsString({ message: 'defaultRole must be a string' })
  defaultRole?: string;

  @ApiPropertyOptional({ nullable: true, type: String, example: 'groups', description: 'The ID token claim listing the groups roleMappings refer to' })
  @IsOptional()
  @ValidateIf((o: PutIdentityProviderDto) => o.groupsClaim !== null)
  @IsString({ message: 'groupsClaim must be a string or null' })
  @MaxLength(200, { message: 'groupsClaim must be at most 200 characters' })
  groupsClaim?: string | null;

  @ApiPropertyOptional({
    type: [String],
    example: ['groups'],
    description: `Extra OpenID scopes asked for at sign-in after openid email profile (those three are always sent), e.g. groups for a groups claim; at most ${IDENTITY_PROVIDER_LIMITS.scopes}`,
  })
  @IsOptional()
  @IsArray({ message: 'scopes must be an array of scope names' })
  @ArrayMaxSize(IDENTITY_PROVIDER_LIMITS.scopes, { message: `scopes may list at most ${IDENTITY_PROVIDER_LIMITS.scopes} scopes` })
  @IsString({ each: true, message: 'scopes must contain scope names (strings)' })
  @MaxLength(IDENTITY_PROVIDER_LIMITS.scope, { each: true, message: `each scope in scopes must be at most ${IDENTITY_PROVIDER_LIMITS.scope} characters` })
  scopes?: string[];

  @ApiPropertyOptional({ type: [RoleMappingDto], description: 'Group → role for people the groups claim puts in that group (needs groupsClaim)' })
  @IsOptional()
  @IsArray({ message: 'roleMappings must be an array of {group, role}' })
  @ArrayMaxSize(IDENTITY_PROVIDER_LIMITS.roleMappings, { message: `roleMappings may hold at most ${IDENTITY_PROVIDER_LIMITS.roleMappings} entries` })
  @ValidateNested({ each: true })
  @Type(() => RoleMappingDto)
  roleMappings?: RoleMappingDto[];

  @ApiPropertyOptional({ default: false, description: 'Password sessions open nothing in this organisation' })
  @IsOptional()
  @IsBoolean({ message: 'requireSso must be true or false' })
  requireSso?: boolean;

  @ApiPropertyOptional({
    default: false,
    description:
      'Turn on requireSso although it locks out members who cannot sign in through the IdP (no link to it and no email of a verified domain); without it such a save answers 409 lockout_confirmation_required naming them',
  })
  @IsOptional()
  @IsBoolean({ message: 'confirmLockout must be true or false' })
  confirmLockout?: boolean;

  @ApiPropertyOptional({
    default: false,
    description: 'Accept ID-JAGs from this IdP (Enterprise-Managed Authorization); refused until an admin has signed in through this IdP',
  })
  @IsOptional()
  @IsBoolean({ message: 'acceptIdJag must be true or false' })
  acceptIdJag?: boolean;

  @ApiPropertyOptional({ type: [IdJagClientDto], description: 'AI clients whose ID-JAG trades are accepted, and the project each opens' })
  @IsOptional()
  @IsArray({ message: 'idJagClients must be an array of {clientId, projectId}' })
  @ArrayMaxSize(IDENTITY_PROVIDER_LIMITS.idJagClients, { message: `idJagClients may hold at most ${IDENTITY_PROVIDER_LIMITS.idJagClients} entries` })
  @ValidateNested({ each: true })
  @Type(() => IdJagClientDto)
  idJagClients?: IdJagClientDto[];
}

export class TxtRecordDto {
  @ApiProperty({ example: '_agent-gateway.example.com', description: 'Where to publish the record (the domain itself is accepted too)' })
  name: string;

  @ApiProperty({ enum: ['TXT'] })
  type: 'TXT';

  @ApiProperty({ example: 'agent-gateway-verification=3q2-7wEAAAB…' })
  value: string;
}

export class ClaimedDomainDto {
  @ApiProperty({ example: 'example.com' })
  domain: string;

  @ApiProperty({ enum: ['pending', 'verified'], description: 'Only verified domains count (sign-in routing, just-in-time accounts, SCIM)' })
  status: 'pending' | 'verified';

  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  verifiedAt: Date | null;

  @ApiProperty({ type: TxtRecordDto })
  txtRecord: TxtRecordDto;
}

export class DiscoverySummaryDto {
  @ApiProperty() issuer: string;
  @ApiProperty() authorizationEndpoint: string;
  @ApiProperty() tokenEndpoint: string;
  @ApiProperty() jwksUri: string;
  @ApiProperty({ nullable: true, type: String }) userinfoEndpoint: string | null;
  @ApiProperty({ nullable: true, type: String }) endSessionEndpoint: string | null;
  @ApiProperty({ type: [String] }) codeChallengeMethods: string[];
  @ApiProperty({ description: 'Whether the document lists code_challenge_methods_supported (sign-in uses S256 either way)' }) pkceAdvertised: boolean;
  @ApiProperty({ type: [String] }) signingAlgorithms: string[];
  @ApiProperty({ type: [String] }) tokenEndpointAuthMethods: string[];
  @ApiProperty({ description: 'Usable signing keys in the key set when saved' }) signingKeys: number;
  @ApiProperty({ format: 'date-time' }) fetchedAt: string;
}

export class RoleMappingViewDto {
  @ApiProperty() group: string;
  @ApiProperty({ enum: MEMBERSHIP_ROLES }) role: MembershipRole;
}

export class IdJagClientViewDto {
  @ApiProperty() clientId: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) projectId: string | null;
}

export class LastIdTokenDto {
  @ApiProperty({ format: 'date-time' }) receivedAt: Date;
  @ApiProperty({ type: [String], description: 'The names of its claims (never their values)' }) claims: string[];
}

/** The settings as shown; the client secret never appears. It implements the view, so a field the view gains is documented here too. */
export class IdentityProviderDto implements IdentityProviderView {
  @ApiProperty({ format: 'uuid' }) organizationId: string;
  @ApiProperty() issuer: string;
  @ApiProperty() clientId: string;
  @ApiProperty({ description: 'The client secret is stored (it is never shown)' }) clientSecretSet: boolean;
  @ApiProperty({ example: 'https://gateway.example.com/auth/sso/callback/3q2-7wX1vXg9yQ0bA8cK2w', description: "The organisation's own redirect URI to register at the IdP" })
  redirectUri: string;
  @ApiProperty({
    description: 'Connected before per-IdP redirect URIs: the shared {BASE_URL}/auth/sso/callback is still accepted for it until an admin confirms the new URI is registered',
  })
  legacyRedirectUri: boolean;
  @ApiProperty({ type: [String], description: 'The claimed domains, as sent' }) emailDomains: string[];
  @ApiProperty({ type: [ClaimedDomainDto] }) domains: ClaimedDomainDto[];
  @ApiProperty({ enum: ['member'] }) defaultRole: 'member';
  @ApiProperty({ nullable: true, type: String }) groupsClaim: string | null;
  @ApiProperty({ type: [String], description: 'Extra OpenID scopes asked for at sign-in, after openid email profile' }) scopes: string[];
  @ApiProperty({ type: [RoleMappingViewDto] }) roleMappings: RoleMappingViewDto[];
  @ApiProperty() requireSso: boolean;
  @ApiProperty() acceptIdJag: boolean;
  @ApiProperty({ type: [IdJagClientViewDto] }) idJagClients: IdJagClientViewDto[];
  @ApiProperty({ nullable: true, type: String, format: 'date-time', description: 'When an admin first signed in through this IdP (acceptIdJag needs it)' })
  adminSignedInAt: Date | null;
  @ApiProperty({ nullable: true, type: String, description: "The IdP tenant an admin's ID token named (`tenant` or `tid`), recorded at that sign-in; ID-JAGs of an issuer shared by several tenants must name it. Read-only" })
  tenant: string | null;
  @ApiProperty({ type: LastIdTokenDto, nullable: true, description: 'The last ID token the IdP sent that passed the checks, since the issuer or the scopes last changed' })
  lastIdToken: LastIdTokenDto | null;
  @ApiProperty({
    nullable: true,
    type: Boolean,
    description: "Whether that ID token carried groupsClaim (null: no groups claim configured, or no ID token yet); false: nobody's role follows roleMappings",
  })
  groupsClaimInLastIdToken: boolean | null;
  @ApiProperty({ type: DiscoverySummaryDto, nullable: true }) discovery: DiscoverySummaryDto | null;
  @ApiProperty({ format: 'date-time' }) createdAt: Date;
  @ApiProperty({ format: 'date-time' }) updatedAt: Date;
}

/** `GET …/identity-provider/redirect-uri`: what to register at the IdP, before anything is connected. */
export class RedirectUriDto {
  @ApiProperty({ example: 'https://gateway.example.com/auth/sso/callback/3q2-7wX1vXg9yQ0bA8cK2w' }) redirectUri: string;
}
