/**
 * How the policy learns an OAuth client's name (the `client.name` of a condition): the library
 * that owns the clients provides it under this token (`oauth`); the policy reads it through the
 * application's providers, so it needs no import of that library.
 */
export const CLIENT_NAMES = Symbol('agent-gateway:policy-client-names');

export interface ClientNames {
  /** The client's registered name, or null for a client that is not known. */
  nameOf(clientId: string): Promise<string | null>;
}
