import type { DiscoveryService } from '@nestjs/core';
import { z } from 'zod';
import type { CapabilityDefinition } from './capability';
import { CapabilityRegistry } from './capability-registry';

function capability(overrides: Partial<CapabilityDefinition> = {}): CapabilityDefinition {
  return {
    name: 'get_thing',
    title: 'Get thing',
    description: 'A thing',
    permission: 'project:read',
    risk: 'read',
    inputSchema: z.object({ id: z.string() }).strict(),
    handle: async () => ({}),
    ...overrides,
  };
}

function registry(...definitions: CapabilityDefinition[]): CapabilityRegistry {
  const r = new CapabilityRegistry({} as DiscoveryService);
  r.register(definitions);
  return r;
}

describe('CapabilityRegistry', () => {
  it('builds the tools/list entry once, with the strict input schema as JSON Schema', () => {
    const r = registry(capability({ annotations: { idempotentHint: true } }));
    const [tool] = r.toolsetFor(['project:read']).tools;
    expect(tool).toEqual({
      name: 'get_thing',
      title: 'Get thing',
      description: 'A thing',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
      annotations: { title: 'Get thing', readOnlyHint: true, idempotentHint: true },
    });
    expect(Object.isFrozen(tool)).toBe(true);
    expect(Object.isFrozen(tool.inputSchema)).toBe(true);
  });

  it('opens to each permission set exactly the tools whose permission it holds, and reuses the toolset', () => {
    const r = registry(
      capability({ name: 'read_a', permission: 'project:read' }),
      capability({ name: 'write_b', permission: 'tasks:write' }),
      capability({ name: 'read_c', permission: 'tasks:read' }),
    );
    expect(r.toolsetFor([]).tools).toEqual([]);
    expect(r.toolsetFor(['tasks:write', 'tasks:read']).tools.map((t) => t.name)).toEqual(['write_b', 'read_c']);
    expect([...r.toolsetFor(['project:read']).byName.keys()]).toEqual(['read_a']);
    expect(r.toolsetFor(['tasks:read', 'tasks:write'])).toBe(r.toolsetFor(['tasks:write', 'tasks:read']));
    expect(r.toolsetFor(['tasks:read', 'not:a-permission'])).toBe(r.toolsetFor(['tasks:read']));
  });

  it.each([
    ['read', { readOnlyHint: true }],
    ['write', { readOnlyHint: false, destructiveHint: false }],
    ['destructive', { readOnlyHint: false, destructiveHint: true }],
  ] as const)('derives the hints of a %s capability from its risk, and knows its risk', (risk, hints) => {
    const r = registry(capability({ risk, permission: 'tasks:write' }));
    expect(r.toolsetFor(['tasks:write']).tools[0].annotations).toEqual({ title: 'Get thing', ...hints });
    expect(r.riskOf('get_thing')).toBe(risk);
    expect(r.riskOf('nope')).toBeUndefined();
  });

  it('knows the permission each tool needs', () => {
    const r = registry(capability({ name: 'write_b', permission: 'tasks:write' }));
    expect(r.permissionFor('write_b')).toBe('tasks:write');
    expect(r.permissionFor('nope')).toBeUndefined();
  });

  it.each([
    ['a non-strict input schema', capability({ inputSchema: z.object({ id: z.string() }) }), /must be strict/],
    ['a permission outside the catalogue', capability({ permission: 'tasks:admin' as never }), /not in the agent permission catalogue/],
    ['a capability without a risk', capability({ risk: undefined as never }), /risk must be one of read, write, destructive/],
    ['a risk outside read, write, destructive', capability({ risk: 'dangerous' as never }), /risk must be one of/],
    ['a name that is not snake_case', capability({ name: 'Get-Thing' }), /snake_case/],
  ])('refuses %s at start-up', (_what, definition, message) => {
    expect(() => registry(definition)).toThrow(message);
  });

  it('refuses two capabilities with one name', () => {
    expect(() => registry(capability(), capability())).toThrow(/registered twice/);
  });
});
