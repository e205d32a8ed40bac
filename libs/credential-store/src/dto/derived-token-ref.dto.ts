import { ApiProperty } from '@nestjs/swagger';

/**
 * A project token derived from a service key, by its ids: the start of the service-key routes'
 * token answer and of an offboarding summary's list of tokens to rotate.
 */
export class DerivedTokenRefDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  serviceKeyId: string;

  @ApiProperty({ format: 'uuid' })
  projectId: string;
}
