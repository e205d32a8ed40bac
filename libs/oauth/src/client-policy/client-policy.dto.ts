import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CLIENT_POLICY_MODES, ClientPolicyMode } from './client-policy.entity';
import { MAX_ALLOWED_HOSTS } from './client-policy';

export class UpdateClientPolicyDto {
  @ApiProperty({ enum: CLIENT_POLICY_MODES, description: '`any`: every client may connect; `listed`: only the clients listed here' })
  @IsIn(CLIENT_POLICY_MODES, { message: `mode must be one of: ${CLIENT_POLICY_MODES.join(', ')}` })
  mode: ClientPolicyMode;

  @ApiPropertyOptional({
    type: [String],
    description: 'With `listed`: hosts of admitted metadata-document clients\' client_id URLs (e.g. `claude.ai`; a port when the URL names one)',
  })
  @IsOptional()
  @IsArray({ message: 'allowedHosts must be an array of host names' })
  @ArrayMaxSize(MAX_ALLOWED_HOSTS, { message: `allowedHosts may list at most ${MAX_ALLOWED_HOSTS} hosts` })
  @IsString({ each: true, message: 'allowedHosts must contain host names (strings)' })
  @MaxLength(260, { each: true, message: 'each host in allowedHosts must be at most 260 characters' })
  allowedHosts?: string[];

  @ApiPropertyOptional({ description: 'With `listed`: whether registered (dynamic registration) clients may connect; default false' })
  @IsOptional()
  @IsBoolean({ message: 'allowRegisteredClients must be true or false' })
  allowRegisteredClients?: boolean;
}

export class ClientPolicyDto {
  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  @ApiProperty({ enum: CLIENT_POLICY_MODES })
  mode: ClientPolicyMode;

  @ApiProperty({ type: [String] })
  allowedHosts: string[];

  @ApiProperty()
  allowRegisteredClients: boolean;

  @ApiProperty({ nullable: true, type: String, format: 'date-time', description: 'null while the organisation has never set a policy' })
  updatedAt: Date | null;
}

export class UpdatedClientPolicyDto extends ClientPolicyDto {
  @ApiProperty({ description: 'Grants of clients the new policy refuses, ended with their tokens by this change' })
  revokedGrants: number;
}
