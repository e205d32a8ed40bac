import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

export class DeriveProjectTokenDto {
  @ApiProperty({ format: 'uuid', description: 'A project of the service key’s organisation.' })
  @IsUUID('all')
  projectId: string;
}
