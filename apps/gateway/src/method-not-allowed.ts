import type { Request } from 'express';

interface RouterLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): boolean;
}

/**
 * The methods the router serves at `req.path`, when the request itself matched no route (Nest's
 * "Cannot GET …" 404): a path that exists under other methods is answered 405 with `Allow`.
 * Empty when no route has the path.
 */
export function allowedMethods(req: Request): string[] {
  if (req.route) return [];
  const router = (req.app as unknown as { router?: { stack: RouterLayer[] } }).router;
  const methods = new Set<string>();
  for (const layer of router?.stack ?? []) {
    if (!layer.route || !layer.match(req.path)) continue;
    for (const [method, on] of Object.entries(layer.route.methods)) {
      if (on && method !== '_all') methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  methods.delete(req.method.toUpperCase());
  return [...methods].sort();
}
