import { Module } from '@nestjs/common';
import { DiscoveryModule as NestDiscoveryModule } from '@nestjs/core';
import { CapabilityRegistry } from './capability-registry';

/**
 * The capability contract and its registry, free of any transport. Feature modules contribute
 * capabilities by listing `@Capability()` providers; the registry finds them at start-up and a
 * transport (the MCP endpoint) looks them up.
 */
@Module({
  imports: [NestDiscoveryModule],
  providers: [CapabilityRegistry],
  exports: [CapabilityRegistry],
})
export class CapabilitiesModule {}
