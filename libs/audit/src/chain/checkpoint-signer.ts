import { Injectable } from '@nestjs/common';
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { AppConfig, derivedKey } from '@app/config';

/** The HKDF label the checkpoint key is derived with. */
export const CHECKPOINT_KEY_LABEL = 'audit-checkpoint';

/** A checkpoint as the export and `verify` show it: the chain's head at `seq`, signed. */
export interface Checkpoint {
  seq: number;
  hash: string;
  keyId: string;
  signature: string;
  /** Milliseconds since the epoch. */
  time: number;
}

/** The bytes a checkpoint's signature covers: RFC 8785 JSON of the chain, the head and the time. */
export function checkpointMessage(chain: string, c: { seq: number; hash: string; time: number }): Buffer {
  return Buffer.from(canonicalize({ chain, seq: c.seq, hash: c.hash, time: c.time }) as string, 'utf8');
}

/** Checks a checkpoint's signature with a public key (base64url of the raw 32-byte Ed25519 key). */
export function checkpointSignatureValid(chain: string, checkpoint: Checkpoint, publicKey: string): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey }, format: 'jwk' });
  return verify(null, checkpointMessage(chain, checkpoint), key, Buffer.from(checkpoint.signature, 'base64url'));
}

/**
 * Signs checkpoints with an Ed25519 key derived (HKDF-SHA-256, label `audit-checkpoint`) from the
 * current `SECRETS_KEYS` key (where none is set, never in production, the key generated into
 * DATA_DIR). A new current key is a new checkpoint key; the old public keys
 * stay listed. The key id is the first 16 hex digits of the SHA-256 of the raw public key.
 */
@Injectable()
export class CheckpointSigner {
  private readonly privateKey: KeyObject;
  readonly publicKey: string;
  readonly keyId: string;

  constructor(config: AppConfig) {
    const seed = derivedKey(config.secretsKeys[0]!, CHECKPOINT_KEY_LABEL);
    // PKCS#8 wrapping of a raw Ed25519 seed (RFC 8410): node:crypto takes the seed no other way.
    const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
    this.privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    const jwk = createPublicKey(this.privateKey).export({ format: 'jwk' });
    this.publicKey = jwk.x as string;
    this.keyId = createHash('sha256').update(Buffer.from(this.publicKey, 'base64url')).digest('hex').slice(0, 16);
  }

  sign(chain: string, head: { seq: number; hash: string; time: number }): Checkpoint {
    const signature = sign(null, checkpointMessage(chain, head), this.privateKey).toString('base64url');
    return { ...head, keyId: this.keyId, signature };
  }
}
