/** The `initialize`-based revisions served (answers as SSE, as the SDK does). */
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
/** The stateless revisions served (`server/discover`, `Mcp-Method`/`Mcp-Name`, JSON answers). */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS];

const SUPPORTED = new Set(SUPPORTED_PROTOCOL_VERSIONS);

export function isSupportedProtocolVersion(version: string): boolean {
  return SUPPORTED.has(version);
}
