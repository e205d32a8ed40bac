import { CallToolResult, type InputRequiredResult, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { DomainError } from '@app/common';
import type { McpOutcome } from '@app/observability';
import type { ProjectContext, Toolset } from '@app/capabilities';
import { PolicyRefusal } from '@app/policy';
import { answerHeldCall, type HeldCallContext } from './approval-answers';
import { capabilityFailure } from './capability-errors';
import type { FairCalls } from './fair-calls';
import type { ToolCalls } from './tool-calls';

/**
 * One `tools/call`: the tool, its arguments validated by its schema, the policy's check (`admit`),
 * then the capability, its failures mapped to tool results (`capabilityFailure`) and a call held
 * for approval answered the way the request's revision has for it (`answerHeldCall`).
 */
export async function callTool(
  server: Server,
  toolset: Toolset,
  name: string,
  args: unknown,
  context: ProjectContext,
  calls: ToolCalls | undefined,
  fair: FairCalls,
  held: HeldCallContext,
  admit: (args: Record<string, unknown>) => Promise<void>,
  record: (tool: string | undefined, outcome: McpOutcome, rpcCode?: number) => void,
): Promise<CallToolResult | InputRequiredResult> {
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
    let failure: CallToolResult | InputRequiredResult;
    try {
      failure = (await answerHeldCall(error, held)) ?? capabilityFailure(error, name);
    } catch (rpcError) {
      // Answered as a JSON-RPC error (the database unavailable, input the schema let through, -32042).
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
