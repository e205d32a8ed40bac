import { SetMetadata } from '@nestjs/common';
import type { z } from 'zod';
import type { AgentPermission } from './agent-permissions';

/** What a capability does to the project, from its definition in this registry only. */
export const CAPABILITY_RISKS = ['read', 'write', 'destructive'] as const;
export type CapabilityRisk = (typeof CAPABILITY_RISKS)[number];

/**
 * The credential a capability runs under, by its ids: what an agent's write records as its
 * actor and source (the token, and the service key or the OAuth grant and client it comes from).
 */
export interface AgentCredentialRef {
  readonly tokenId: string;
  readonly serviceKeyId: string | null;
  readonly grantId: string | null;
  readonly clientId: string | null;
  /** The person an OAuth grant's token acts for. */
  readonly userId?: string | null;
  /** The service key's name and the person's email, when the credential has them (the audit records' actor). */
  readonly serviceKeyName?: string | null;
  readonly userEmail?: string | null;
  /** Where the call came from (the audit records' `src_endpoint`). */
  readonly origin?: { readonly ip?: string | null; readonly userAgent?: string | null };
}

/**
 * What a capability handler gets instead of a project id from its input: the one project the
 * credential is bound to. Handlers scope every query by `projectId` from here. The transport
 * that calls the capability (the MCP endpoint) builds it from the request's credential; a
 * capability never sees the credential's principal.
 */
export interface ProjectContext {
  readonly projectId: string;
  readonly organizationId: string;
  readonly permissions: readonly AgentPermission[];
  readonly credential: AgentCredentialRef;
}

/**
 * The structured result of a capability (a JSON object); the MCP layer sends it as the tool
 * result's `structuredContent` and, serialised, as its text content.
 */
export type CapabilityResult = Record<string, unknown>;

/**
 * One capability (an MCP tool). Adding a capability is one file: an `@Capability()` provider
 * implementing this interface, listed in its feature module's providers.
 * `inputSchema` must be a strict `z.object({...}).strict()`: unknown arguments (a `projectId`,
 * say) are refused as invalid params.
 */
export interface CapabilityDefinition<Schema extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly permission: AgentPermission;
  readonly inputSchema: Schema;
  /**
   * Optional shape of the result, advertised in `tools/list` as the tool's `outputSchema` so
   * clients can validate `structuredContent`. The handler's result must match it.
   */
  readonly outputSchema?: z.ZodObject;
  /**
   * What the capability does to the project (SPEC §10): `read`, `write` or `destructive`. The
   * organisation's policy matches on it, and the `readOnlyHint` and `destructiveHint` of
   * `tools/list` follow from it (never the other way round).
   */
  readonly risk: CapabilityRisk;
  /** Other MCP tool annotations; the read-only and destructive hints come from `risk`. */
  readonly annotations?: { idempotentHint?: boolean };
  /**
   * Runs the capability. `args` are already validated against `inputSchema`. Throw a
   * `DomainError` (`NotFoundError`, `ConflictError`, …) for a refusal the agent should read:
   * the registry turns it into a tool error (see docs/mcp.md, "Errors from capabilities").
   */
  handle(args: z.infer<Schema>, context: ProjectContext): Promise<CapabilityResult>;
}

export const CAPABILITY_METADATA = 'agent-gateway:capability';

/** Marks a provider as a capability; the registry discovers it at start-up. */
export const Capability = () => SetMetadata(CAPABILITY_METADATA, true);
