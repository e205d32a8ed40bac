import { randomBytes } from 'node:crypto';
import type { AppConfig } from '@app/config';
import { CheckpointSigner, checkpointSignatureValid } from './checkpoint-signer';

const key = (id: string) => ({ id, key: randomBytes(32) });
const configOf = (secretsKeys: { id: string; key: Buffer }[], sessionSecret = 'a-session-secret-of-enough-length-0123456789') =>
  ({ secretsKeys, sessionSecret }) as unknown as AppConfig;

describe('CheckpointSigner: the checkpoint key comes from the current SECRETS_KEYS key', () => {
  const head = { seq: 3, hash: 'ab'.repeat(32), time: 1_764_000_000_000 };

  it('the same current key signs with the same key id whatever the session secret; the signature checks with its public key', () => {
    const k1 = key('k1');
    const a = new CheckpointSigner(configOf([k1], 'one-session-secret-0123456789-0123456789'));
    const b = new CheckpointSigner(configOf([k1], 'another-session-secret-0123456789-012345'));
    expect(b.keyId).toBe(a.keyId);
    expect(b.publicKey).toBe(a.publicKey);
    const checkpoint = a.sign('org-1', head);
    expect(checkpointSignatureValid('org-1', checkpoint, b.publicKey)).toBe(true);
    expect(checkpointSignatureValid('org-2', checkpoint, b.publicKey)).toBe(false);
  });

  it('a new current key is a new checkpoint key; checkpoints of the old one still check with its public key', () => {
    const k1 = key('k1');
    const before = new CheckpointSigner(configOf([k1]));
    const after = new CheckpointSigner(configOf([key('k2'), k1]));
    expect(after.keyId).not.toBe(before.keyId);
    const old = before.sign('org-1', head);
    expect(checkpointSignatureValid('org-1', old, before.publicKey)).toBe(true);
    expect(checkpointSignatureValid('org-1', old, after.publicKey)).toBe(false);
  });
});
