import { Module } from '@nestjs/common';
import { DiscoveryModule as NestDiscoveryModule } from '@nestjs/core';
import { CapabilityRegistry } from './capability-registry';
import { McpController } from './mcp.controller';
import { McpRateLimiter } from './mcp-rate-limiter';
import { McpService } from './mcp.service';

/**
 * The MCP endpoint and the capability registry. Feature modules contribute capabilities by
 * listing `@Capability()` providers; the registry finds them at start-up.
 */
@Module({
  imports: [NestDiscoveryModule],
  controllers: [McpController],
  providers: [CapabilityRegistry, McpService, McpRateLimiter],
  exports: [CapabilityRegistry],
})
export class McpModule {}
