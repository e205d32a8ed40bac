import { Injectable, Logger, OnApplicationShutdown, Optional } from '@nestjs/common';
import { toNodeHandler, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  CallToolResult,
  createMcpHandler,
  isJsonContentType,
  type McpHttpHandler,
  type McpRequestContext,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Tool,
} from '@modelcontextprotocol/server';
import type { Response } from 'express';
import { z } from 'zod';
import { BufferedRecords } from '@app/audit';
import { DomainError } from '@app/common';
import { AppConfig } from '@app/config';
import type { AgentPrincipal, AuthenticatedRequest } from '@app/credentials';
import { McpOutcome, Metrics } from '@app/observability';
import { CapabilityRegistry, type ProjectContext, type Toolset } from '@app/capabilities';
import { PolicyGate, PolicyRefusal } from '@app/policy';
import { capabilityFailure } from './capability-errors';
import { echoableId, jsonRpcError, MCP_INSUFFICIENT_SCOPE, MCP_SERVER_ERROR, MCP_UNSUPPORTED_PROTOCOL_VERSION } from './json-rpc';
import { directExchange, serveDirect } from './mcp-exchange';
import { holdAnswer, ToolCalls } from './tool-calls';
import { FairCalls } from './fair-calls';
import { recordToolOutcome } from './mcp-tracing';
import { McpRefusal } from './mcp-http.errors';
import {
  isSupportedProtocolVersion,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './protocol-versions';

const SERVER_INFO = { name: 'agent-gateway', title: 'Agent Gateway', version: '0.1.0' };
/** What an `initialize` may negotiate (the stateless 2026-07-28 revision is the SDK's own). */
const INITIALIZE_VERSIONS: string[] = [...LEGACY_PROTOCOL_VERSIONS];
/** A 2026-07-28 instance also lists the revision it is bound to (the SDK adds it on its own path too). */
const MODERN_INSTANCE_VERSIONS: string[] = [...LEGACY_PROTOCOL_VERSIONS, ...MODERN_PROTOCOL_VERSIONS];
const INSTRUCTIONS =
  'Every tool acts on exactly one project: the one bound to the token you connected with. ' +
  'Tools never take a project id; call get_project to see which project and permissions you have.';

/**
 * The MCP endpoint behind the controller. `tools/list` and `tools/call` requests that the SDK
 * would accept as they are take the direct exchange (`mcp-exchange.ts`): an SDK `Server`
 * dispatches the message and the answer is written in one go. Everything else goes through the
 * official SDK's `createMcpHandler` (both protocol generations from one factory, stateless)
 * adapted to Node once with `toNodeHandler`.
 *
 * Either way each request gets its own small `Server` (assembling one costs a few microseconds):
 * two handlers over the prebuilt toolset of the token's permission set. No schema conversion,
 * no registration loop and no database work happen per request, and the handlers read the
 * project and principal from the request's own context (its `authInfo`), never from the instance.
 */
@Injectable()
export class McpService implements OnApplicationShutdown {
  private readonly logger = new Logger('Mcp');
  private readonly handler: McpHttpHandler;
  private readonly nodeHandler: NodeMcpRequestHandler;
  /** The tool calls of each request in progress, by its `AuthInfo` (what the SDK hands the server factory). */
  private readonly callsOf = new WeakMap<AuthInfo, ToolCalls>();
  /** The instance's tool calls, shared fairly between organisations. */
  private readonly fair: FairCalls;

  constructor(
    private readonly registry: CapabilityRegistry,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly policy: PolicyGate,
    @Optional() private readonly audit?: BufferedRecords,
  ) {
    this.fair = new FairCalls(config.mcpMaxConcurrentToolCalls);
    const onerror = (error: Error) => this.logger.debug(`request refused by the MCP SDK: ${error.message}`);
    this.handler = createMcpHandler((ctx) => this.createServer(ctx.era, ctx.authInfo), { legacy: 'stateless', onerror });
    this.nodeHandler = toNodeHandler(this.handler, {
      onerror: (error) => this.logger.error(`MCP adapter failure: ${error.message}`, error.stack),
    });
  }

  /**
   * Serves one authenticated POST. The guard has put the principal and its `AuthInfo` on the
   * request; the body is parsed and bounded (size, depth) by the app's body middleware.
   */
  async handle(req: AuthenticatedRequest, res: Response): Promise<void> {
    try {
      this.refuse(req);
    } catch (error) {
      this.recordMessages(req.body, 'refused', true);
      throw error;
    }
    const exchange = directExchange(req.headers, req.body);
    const calls = new ToolCalls();
    if (req.auth) this.callsOf.set(req.auth, calls);
    if (!exchange || !req.auth) {
      if (!hasToolCall(req.body)) {
        await this.nodeHandler(req, res, req.body);
      } else {
        // The SDK writes its status before the tools have run: held until they have, so that an
        // outage can still be answered 503.
        const held = holdAnswer(res);
        try {
          await this.nodeHandler(req, res, req.body);
        } finally {
          held.restore();
        }
        calls.throwIfOutage();
        held.send();
      }
    } else {
      try {
        await serveDirect(exchange, this.createServer(exchange.era, req.auth), req.auth, res, () => calls.throwIfOutage());
      } catch (error) {
        if (error instanceof DomainError) throw error;
        this.logger.error(`MCP exchange failure: ${(error as Error).message}`, (error as Error).stack);
        if (!res.headersSent) res.status(500).json(jsonRpcError(exchange.message.id, ProtocolErrorCode.InternalError, 'Internal error'));
      }
    }
    this.recordMessages(req.body, res.statusCode < 400 ? 'ok' : 'error', res.statusCode >= 400);
  }

  /** Metrics per message; a `tools/call` the SDK ran was recorded by `callTool` with its own outcome. */
  private recordMessages(body: unknown, outcome: McpOutcome, includeToolCalls: boolean): void {
    for (const message of Array.isArray(body) ? body : [body]) {
      const method = (message as { method?: unknown } | null)?.method;
      if (method === 'tools/call' && !includeToolCalls) continue;
      const tool = toolCalled(message);
      this.metrics.recordMcpCall(method, tool !== undefined && this.registry.permissionFor(tool) !== undefined ? tool : undefined, outcome);
    }
  }

  /** Whether `name` is a registered tool (traces name only those). */
  isTool(name: string): boolean {
    return this.registry.permissionFor(name) !== undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.handler.close();
  }

  /**
   * Checks that need the HTTP layer, in order: media type, protocol version, permissions. A
   * refusal is thrown as `McpRefusal`, which the controller's JSON-RPC filter answers.
   */
  private refuse(req: AuthenticatedRequest): void {
    const body: unknown = req.body;
    if (!isJsonContentType(req.headers['content-type'])) {
      throw new McpRefusal('invalid_input', MCP_SERVER_ERROR, 'Unsupported Media Type: Content-Type must be application/json', {
        status: 415,
      });
    }
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && (Array.isArray(version) || !isSupportedProtocolVersion(version))) {
      const requested = Array.isArray(version) ? version.join(', ') : version;
      throw new McpRefusal('invalid_input', MCP_UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${requested}`, {
        id: echoableId(body),
        data: { supported: SUPPORTED_PROTOCOL_VERSIONS, requested },
      });
    }
    const principal = req.principal as AgentPrincipal;
    for (const message of Array.isArray(body) ? body : [body]) {
      const tool = toolCalled(message);
      if (tool === undefined) continue;
      const needed = this.registry.permissionFor(tool);
      if (needed === undefined || principal.permissions.includes(needed)) continue;
      throw new McpRefusal(
        'forbidden',
        MCP_INSUFFICIENT_SCOPE,
        `Insufficient scope: the tool ${tool} needs the permission ${needed}, which this token does not carry`,
        {
          id: echoableId(message),
          data: { requiredScope: needed, tool },
          headers: {
            'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${needed}", resource_metadata="${this.config.protectedResourceMetadataUrl}"`,
          },
        },
      );
    }
  }

  /** The per-request server: cheap by construction (see the class comment). */
  private createServer(era: McpRequestContext['era'], authInfo: AuthInfo | undefined): Server {
    const toolset = this.registry.toolsetFor(principalOf(authInfo).permissions);
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      supportedProtocolVersions: era === 'modern' ? MODERN_INSTANCE_VERSIONS : INITIALIZE_VERSIONS,
    });
    listEveryVersionOnDiscover(server);
    server.setRequestHandler('tools/list', () => ({ tools: toolset.tools as Tool[] }));
    const calls = authInfo ? this.callsOf.get(authInfo) : undefined;
    // `admit`: the organisation's policy decides each call before its capability runs (a refusal is a tool error).
    server.setRequestHandler('tools/call', (request, ctx) =>
      callTool(server, toolset, request.params.name, request.params.arguments, projectContextOf(ctx.http?.authInfo), calls, this.fair, (args) => this.policy.admit(principalOf(ctx.http?.authInfo), request.params.name, args), (tool, outcome, rpcCode) => {
        this.metrics.recordMcpCall('tools/call', tool, outcome);
        recordToolOutcome(ctx.mcpReq.id, rpcCode ?? outcome);
        // A read's record, batched (a write records itself in its transaction): docs/audit.md.
        if (tool && this.audit && toolset.byName.get(tool)?.definition.risk === 'read' && (outcome === 'ok' || outcome === 'tool_error')) {
          const context = projectContextOf(ctx.http?.authInfo);
          this.audit.recordRead({ ...context, tool, outcome: outcome === 'ok' ? 'succeeded' : 'failed', args: request.params.arguments });
        }
      }),
    );
    return server;
  }
}

/** The agent principal the guard put on this request's `authInfo`. */
function principalOf(authInfo: AuthInfo | undefined): AgentPrincipal {
  const principal = (authInfo?.extra as { principal?: AgentPrincipal } | undefined)?.principal;
  if (!principal) throw new Error('MCP request without an agent principal (the guard must run first)');
  return principal;
}

/** The one project a request acts on, from that request's own credential. */
function projectContextOf(authInfo: AuthInfo | undefined): ProjectContext {
  const { projectId, organizationId, permissions, tokenId, serviceKeyId, grantId, clientId, userId, serviceKeyName, userEmail } = principalOf(authInfo);
  const origin = (authInfo?.extra as { origin?: ProjectContext['credential']['origin'] } | undefined)?.origin;
  return { projectId, organizationId, permissions, credential: { tokenId, serviceKeyId, grantId, clientId, userId, serviceKeyName, userEmail, origin } };
}

/**
 * `server/discover` lists every protocol version the endpoint serves. The SDK's own answer lists
 * only the stateless revisions (2025-era ones are negotiated through `initialize`), which
 * conformance checks of the 2026-07-28 revision refuse; clients pick from the list the first
 * revision they speak, so naming the `initialize`-based ones too changes no negotiation.
 * `_ondiscover` is the SDK's (TypeScript-private) answer builder; the protocol test pins this.
 */
function listEveryVersionOnDiscover(server: Server): void {
  const original = server['_ondiscover'].bind(server) as () => Record<string, unknown>;
  server['_ondiscover'] = () => ({ ...original(), supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS] });
}

async function callTool(
  server: Server,
  toolset: Toolset,
  name: string,
  args: unknown,
  context: ProjectContext,
  calls: ToolCalls | undefined,
  fair: FairCalls,
  admit: (args: Record<string, unknown>) => Promise<void>,
  record: (tool: string | undefined, outcome: McpOutcome, rpcCode?: number) => void,
): Promise<CallToolResult> {
  const capability = toolset.byName.get(name);
  if (!capability) {
    record(undefined, 'unknown_tool', ProtocolErrorCode.InvalidParams);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
  }
  const parsed = capability.definition.inputSchema.safeParse(args ?? {});
  if (!parsed.success) {
    record(name, 'invalid_arguments', ProtocolErrorCode.InvalidParams);
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid arguments for tool ${name}: ${parsed.error.issues.map(describeIssue).join('; ')}`,
      { issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
    );
  }
  let result: Record<string, unknown>;
  try {
    await admit(parsed.data);
    const place = fair.acquire(context.organizationId);
    if (place) await place;
    try {
      result = await capability.definition.handle(parsed.data, context);
    } finally {
      fair.release();
    }
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'unavailable') calls?.failedUnavailable(error);
    else calls?.ran();
    let failure: CallToolResult;
    try {
      failure = capabilityFailure(error, name);
    } catch (rpcError) {
      // Answered as a JSON-RPC error (the database unavailable, input the schema let through).
      record(name, 'tool_error', rpcError instanceof ProtocolError ? rpcError.code : undefined);
      throw rpcError;
    }
    // A policy refusal is its own record (`tool.denied`, written before this answer), not a failed call.
    record(name, error instanceof PolicyRefusal ? 'refused' : 'tool_error');
    return failure;
  }
  calls?.ran();
  record(name, 'ok');
  return server.projectCallToolResult(
    { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result },
    capability.outputSchemaJson,
  );
}

function describeIssue(issue: z.core.$ZodIssue): string {
  return issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message;
}

/** The tool name of a `tools/call` request message, else undefined. */
function toolCalled(message: unknown): string | undefined {
  if (message === null || typeof message !== 'object') return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== 'tools/call' || params === null || typeof params !== 'object') return undefined;
  const name = (params as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

/** Whether a body (one message or a batch) holds a `tools/call` request. */
function hasToolCall(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => (m as { method?: unknown } | null)?.method === 'tools/call') : (body as { method?: unknown } | null)?.method === 'tools/call';
}
