import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { IsDisplaySafe, Trim } from '@app/common';

/** `POST /api/organizations/:orgId/oauth-clients`: a confidential client an admin makes for an ID-JAG AI client. */
export class CreateConfidentialClientDto {
  @ApiProperty({ example: 'Claude for Acme', maxLength: 200, description: 'The name people see on the Connected clients page and in the audit log.' })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsDisplaySafe()
  clientName: string;
}

export class CreatedConfidentialClientDto {
  @ApiProperty({ description: "The client's client_id: give it to the AI client and list it in the identity provider's idJagClients." })
  clientId: string;

  @ApiProperty({ description: 'The dgs_ client secret, shown once (only its digest is kept).' })
  clientSecret: string;

  @ApiProperty()
  clientName: string;

  @ApiProperty({ type: [String], example: ['urn:ietf:params:oauth:grant-type:jwt-bearer'] })
  grantTypes: string[];

  @ApiProperty({ enum: ['client_secret_basic'], description: 'HTTP Basic; client_secret_post is accepted too.' })
  tokenEndpointAuthMethod: 'client_secret_basic';

  @ApiProperty({ format: 'date-time' })
  createdAt: Date;
}

/** One of the organisation's own clients (SPEC §10). */
export class OrganizationClientDto {
  @ApiProperty()
  clientId: string;

  @ApiProperty()
  clientName: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ type: String, nullable: true, description: 'The admin who made it (the client survives them).' })
  createdBy: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Its last token request.' })
  lastUsedAt: Date | null;
}

export class OrganizationClientListDto {
  @ApiProperty({ type: [OrganizationClientDto] })
  items: OrganizationClientDto[];
}

export class RotatedClientSecretDto {
  @ApiProperty()
  clientId: string;

  @ApiProperty({ description: 'The new dgs_ client secret, shown once; the old one stops working at once.' })
  clientSecret: string;
}
