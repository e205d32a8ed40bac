import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AGENT_PERMISSION_NAMES, AgentPermission, isAgentPermission } from './agent-permissions';
import { CAPABILITY_METADATA, CAPABILITY_RISKS, CapabilityDefinition, type CapabilityRisk } from './capability';

/** One capability with everything the MCP layer needs, built once at start-up. */
export interface RegisteredCapability {
  readonly definition: CapabilityDefinition;
  /** The frozen `tools/list` entry (JSON Schemas already converted). */
  readonly tool: Tool;
  /** The advertised output JSON Schema, for the SDK's result projection. */
  readonly outputSchemaJson: Readonly<Record<string, unknown>> | undefined;
}

/** What one permission set opens: the listed tools and the callable ones, by name. */
export interface Toolset {
  readonly tools: readonly Tool[];
  readonly byName: ReadonlyMap<string, RegisteredCapability>;
}

const TOOL_NAME_RE = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Every capability of the service. At start-up it discovers the `@Capability()` providers,
 * checks each definition (unique name, catalogue permission, strict object input schema) and
 * converts its schemas to JSON Schema once. Per request the MCP layer only looks things up:
 * the toolset of a permission set is built the first time that set is seen and reused (there
 * are at most 2^|catalogue| of them).
 */
@Injectable()
export class CapabilityRegistry implements OnModuleInit {
  private readonly logger = new Logger(CapabilityRegistry.name);
  private readonly capabilities = new Map<string, RegisteredCapability>();
  private readonly toolsets = new Map<string, Toolset>();

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    const found: CapabilityDefinition[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const metatype = wrapper.metatype as object | undefined;
      if (!metatype || typeof metatype !== 'function' || !Reflect.getMetadata(CAPABILITY_METADATA, metatype)) continue;
      if (!wrapper.isDependencyTreeStatic() || !wrapper.instance) {
        throw new Error(`Capability ${wrapper.name as string} must be a singleton provider (no request scope)`);
      }
      found.push(wrapper.instance as CapabilityDefinition);
    }
    this.register(found);
    this.logger.log(`capabilities: ${[...this.capabilities.keys()].join(', ') || '(none)'}`);
  }

  /** Checks and prepares definitions; throws on the first invalid one (start-up fails). */
  register(definitions: readonly CapabilityDefinition[]): void {
    for (const definition of definitions) {
      const registered = prepare(definition);
      if (this.capabilities.has(definition.name)) throw new Error(`Capability ${definition.name} is registered twice`);
      this.capabilities.set(definition.name, registered);
    }
    this.toolsets.clear();
  }

  /** The permission a tool needs, or undefined when no such tool exists. */
  permissionFor(name: string): AgentPermission | undefined {
    return this.capabilities.get(name)?.definition.permission;
  }

  /** The risk a tool declares, or undefined when no such tool exists. */
  riskOf(name: string): CapabilityRisk | undefined {
    return this.capabilities.get(name)?.definition.risk;
  }

  get names(): string[] {
    return [...this.capabilities.keys()];
  }

  /** The tools a token with these permissions may list and call. */
  toolsetFor(permissions: readonly string[]): Toolset {
    const key = AGENT_PERMISSION_NAMES.filter((p) => permissions.includes(p)).join(' ');
    let toolset = this.toolsets.get(key);
    if (!toolset) {
      const granted = new Set(key.split(' '));
      const byName = new Map<string, RegisteredCapability>();
      for (const [name, capability] of this.capabilities) {
        if (granted.has(capability.definition.permission)) byName.set(name, capability);
      }
      toolset = Object.freeze({ tools: Object.freeze([...byName.values()].map((c) => c.tool)), byName });
      this.toolsets.set(key, toolset);
    }
    return toolset;
  }
}

function prepare(definition: CapabilityDefinition): RegisteredCapability {
  const { name } = definition;
  if (!TOOL_NAME_RE.test(name)) throw new Error(`Capability name ${JSON.stringify(name)} must be snake_case (a-z, 0-9, _)`);
  if (!isAgentPermission(definition.permission)) {
    throw new Error(`Capability ${name}: permission ${JSON.stringify(definition.permission)} is not in the agent permission catalogue`);
  }
  if (!(CAPABILITY_RISKS as readonly unknown[]).includes(definition.risk)) {
    throw new Error(`Capability ${name}: risk must be one of ${CAPABILITY_RISKS.join(', ')} (got ${JSON.stringify(definition.risk)})`);
  }
  if (!(definition.inputSchema instanceof z.ZodObject)) throw new Error(`Capability ${name}: inputSchema must be a z.object(...)`);
  const inputSchema = toJsonSchema(definition.inputSchema, 'input');
  if (inputSchema.additionalProperties !== false) {
    throw new Error(`Capability ${name}: inputSchema must be strict (z.object({...}).strict()) so unknown arguments are refused`);
  }
  const outputSchemaJson = definition.outputSchema ? toJsonSchema(definition.outputSchema, 'output') : undefined;
  const tool: Tool = {
    name,
    title: definition.title,
    description: definition.description,
    inputSchema: inputSchema as Tool['inputSchema'],
    ...(outputSchemaJson ? { outputSchema: outputSchemaJson as Tool['outputSchema'] } : {}),
    annotations: { title: definition.title, ...hintsOf(definition.risk), ...definition.annotations },
  };
  return Object.freeze({ definition, tool: deepFreeze(tool), outputSchemaJson });
}

/** The MCP hints that follow from a risk: a read is read-only; only a destructive call destroys. */
function hintsOf(risk: CapabilityRisk): { readOnlyHint: boolean; destructiveHint?: boolean } {
  return risk === 'read' ? { readOnlyHint: true } : { readOnlyHint: false, destructiveHint: risk === 'destructive' };
}

function toJsonSchema(schema: z.ZodObject, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as Record<string, unknown>;
  return { type: 'object', ...json };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
