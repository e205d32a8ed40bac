/**
 * The deepest JSON nesting any request body may have. JSON.parse itself is iterative and
 * accepts a megabyte of `[[[[…`, but everything after it that walks the value recursively
 * (validators, the MCP SDK, JSON.stringify) overflows the stack on such input and would answer
 * 500. Real requests nest a handful of levels; 64 leaves ample room for tool arguments.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * True when `value` nests objects/arrays deeper than `maxDepth` (a scalar is depth 0, `{}` is 1).
 * Iterative, so it is safe on any input, and it stops at the first path that is too deep.
 */
export function exceedsJsonDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > maxDepth) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
