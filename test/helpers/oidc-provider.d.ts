/**
 * The part of oidc-provider's API that the tests' identity provider (test-idp.ts) uses: the package
 * ships no type declarations.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface KoaContextWithOIDC {
    method: string;
    path: string;
    status: number;
    body: unknown;
    type: string;
    oidc: {
      params: Record<string, unknown>;
      client?: { clientId: string };
      session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
      result?: { consent?: { grantId?: string } };
      provider: Provider;
    };
  }
  export interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  export type Middleware = (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> | void;

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: Middleware): void;
    on(event: string, listener: (...args: any[]) => void): void;
    registerGrantType(name: string, handler: Middleware, params: string[], dupes?: string[]): void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ uid: string; prompt: { name: string }; params: Record<string, unknown> }>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    Grant: { new (init: { clientId: string; accountId?: string }): Grant; find(id: string): Promise<Grant | undefined> };
    Client: { adapter: { upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> } };
  }
}

declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  export function createMemoryAdapter(clockTolerance?: number): (model: string) => unknown;
}
