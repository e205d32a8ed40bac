import { UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import { ApprovalRequired } from '@app/policy';

/** The protocol revision a request speaks when it names none (MCP's own default). */
export const DEFAULT_PROTOCOL_VERSION = '2025-03-26';

/**
 * A call held for approval, answered the way its protocol revision has for it (SPEC §10
 * "Approve"): on 2025-11-25 the JSON-RPC error -32042 with one URL-mode elicitation (the approval's
 * id and page, the page's URL also in the message); on the other revisions the tool error whose
 * text holds the URL (`capabilityFailure`). Returns nothing when the error is answered that way.
 */
export function throwUrlElicitation(error: unknown, protocolVersion: string): void {
  if (!(error instanceof ApprovalRequired) || protocolVersion !== '2025-11-25') return;
  throw new UrlElicitationRequiredError([{ mode: 'url', elicitationId: error.approvalId, url: error.url, message: error.message }], error.message);
}
