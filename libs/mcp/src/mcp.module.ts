import { Module } from '@nestjs/common';
import { CapabilitiesModule } from '@app/capabilities';
import { PolicyModule } from '@app/policy';
import { RateLimitModule } from '@app/rate-limit';
import { McpController } from './mcp.controller';
import { McpEndpoint } from './mcp-endpoint';
import { McpRateLimiter } from './mcp-rate-limiter';
import { RequestStateSeal } from './request-state';
import { McpService } from './mcp.service';

/** The MCP endpoint: it serves the capabilities the registry of `@app/capabilities` discovered. */
@Module({
  imports: [CapabilitiesModule, RateLimitModule, PolicyModule],
  controllers: [McpController],
  providers: [McpService, McpRateLimiter, McpEndpoint, RequestStateSeal],
  exports: [McpEndpoint],
})
export class McpModule {}
