import { Module } from '@nestjs/common';
import { TenancyModule } from '@app/tenancy';
import { GetProjectCapability } from './get-project.capability';

/** The project capabilities (MCP tools); the capability registry discovers them. */
@Module({ imports: [TenancyModule], providers: [GetProjectCapability] })
export class ProjectCapabilitiesModule {}
