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
