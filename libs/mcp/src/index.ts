export * from './json-rpc';
export * from './mcp.module';
export * from './protocol-versions';
export * from './mcp-http.errors';
export * from './mcp-endpoint';
export * from './mcp.controller';
