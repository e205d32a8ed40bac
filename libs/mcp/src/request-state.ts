import { Injectable } from '@nestjs/common';
import { createRequestStateCodec, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { AppConfig, derivedKey } from '@app/config';
import type { AgentPrincipal } from '@app/credentials';
import type { HeldCallState } from './approval-answers';

/** The HKDF label of the request-state key (SPEC §10). */
export const REQUEST_STATE_KEY_LABEL = 'mcp-request-state';

/**
 * The sealed `requestState` of a held call (2026-07-28): the SDK's request-state codec (HMAC-SHA-256
 * with an expiry and a binding), keyed by HKDF(`mcp-request-state`) of the current `SECRETS_KEYS`
 * key, so every instance sharing the keys honours a state another minted; a state minted under an
 * older key of the ring still verifies until it expires. Bound to the request's credential (the
 * grant of an OAuth or ID-JAG token, the token itself for a derived one), like the approval.
 */
@Injectable()
export class RequestStateSeal {
  private readonly keys: Buffer[];
  /** One minting codec per lifetime (the codec's lifetime is fixed; rules choose theirs). */
  private readonly minters = new Map<number, RequestStateCodec<HeldCallState>>();
  private readonly verifiers: RequestStateCodec<HeldCallState>[];

  constructor(config: AppConfig) {
    this.keys = config.secretsKeys.map((k) => derivedKey(k, REQUEST_STATE_KEY_LABEL));
    this.verifiers = this.keys.map((key) => createRequestStateCodec<HeldCallState>({ key, bind: credentialBinding }));
  }

  mint(state: HeldCallState, ttlSeconds: number, ctx: ServerContext): Promise<string> {
    let codec = this.minters.get(ttlSeconds);
    if (!codec) {
      codec = createRequestStateCodec<HeldCallState>({ key: this.keys[0]!, ttlSeconds, bind: credentialBinding });
      this.minters.set(ttlSeconds, codec);
    }
    return codec.mint(state, ctx);
  }

  /** The state's payload; throws on a tampered, expired, foreign-bound or malformed state (the SDK answers -32602). */
  async verify(state: string, ctx: ServerContext): Promise<HeldCallState> {
    let failure: unknown;
    for (const codec of this.verifiers) {
      try {
        const payload = await codec.verify(state, ctx);
        if (typeof payload?.approvalId !== 'string') throw new Error('malformed');
        return payload;
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  }
}

/** The credential a state is bound to: what an approval's binding names. */
function credentialBinding(ctx: ServerContext): string {
  const principal = (ctx.http?.authInfo?.extra as { principal?: AgentPrincipal } | undefined)?.principal;
  if (!principal) return '';
  return principal.serviceKeyId ? `token:${principal.tokenId}` : `grant:${principal.grantId ?? principal.tokenId}`;
}
