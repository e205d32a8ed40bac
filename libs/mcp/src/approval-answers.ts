import { type CallToolResult, inputRequired, type InputRequiredResult, UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import { ApprovalRequired } from '@app/policy';

/** The protocol revision a request speaks when it names none (MCP's own default). */
export const DEFAULT_PROTOCOL_VERSION = '2025-03-26';

/** What a 2026-07-28 `requestState` of a held call carries: the approval it waits for. */
export interface HeldCallState {
  approvalId: string;
}

/** What the answer to a held call depends on, besides the approval. */
export interface HeldCallContext {
  /** The request's revision (`MCP-Protocol-Version`). */
  protocolVersion: string;
  /** The request's client capabilities include `elicitation.url` (2026-07-28 declares them per request). */
  urlElicitation: boolean;
  /** The request's verified `requestState`, when it carried one. */
  state: HeldCallState | undefined;
  /** Seals a `requestState` for this approval, living `ttlSeconds`, bound to the request's credential. */
  mint(state: HeldCallState, ttlSeconds: number): Promise<string>;
}

/** The extra time a `requestState` lives beyond its approval's lifetime (SPEC §10). */
export const REQUEST_STATE_GRACE_SECONDS = 600;

/** The tool error of a retry that carries the state of a still-pending approval. */
export function waitingText(url: string): string {
  return `Waiting for approval: ${url} — call again once it is approved.`;
}

/**
 * A call held for approval, answered the way its protocol revision has for it (SPEC §10
 * "Approve"): on 2025-11-25 the JSON-RPC error -32042 with one URL-mode elicitation (the
 * approval's id and page, the page's URL also in the message); on 2026-07-28, to a client that
 * declared `elicitation.url`, an `InputRequiredResult` with the URL-mode elicitation and a sealed
 * `requestState`, and to a retry carrying the state of that still-pending approval the "waiting"
 * tool error (an SDK client retries at once and must not spend its rounds on it). Undefined
 * otherwise: the tool error whose text holds the URL (`capabilityFailure`).
 */
export async function answerHeldCall(error: unknown, held: HeldCallContext): Promise<CallToolResult | InputRequiredResult | undefined> {
  if (!(error instanceof ApprovalRequired)) return undefined;
  if (held.protocolVersion === '2025-11-25') {
    throw new UrlElicitationRequiredError([{ mode: 'url', elicitationId: error.approvalId, url: error.url, message: error.message }], error.message);
  }
  if (held.protocolVersion !== '2026-07-28') return undefined;
  if (held.state?.approvalId === error.approvalId) {
    return { content: [{ type: 'text', text: waitingText(error.url) }], isError: true, _meta: { 'agent-gateway/error': { code: 'approval_pending' } } };
  }
  if (!held.urlElicitation) return undefined;
  return inputRequired({
    inputRequests: { approval: inputRequired.elicitUrl({ url: error.url, message: error.message }) },
    requestState: await held.mint({ approvalId: error.approvalId }, error.ttlSeconds + REQUEST_STATE_GRACE_SECONDS),
  });
}
