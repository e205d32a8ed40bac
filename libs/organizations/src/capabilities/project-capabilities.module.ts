import { Module } from '@nestjs/common';
import { GetProjectCapability } from './get-project.capability';

/** The project capabilities (MCP tools); the capability registry discovers them. */
@Module({ providers: [GetProjectCapability] })
export class ProjectCapabilitiesModule {}
