import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { encodeBase58 } from '@hadron/domain';

// PKCS#8 DER header of an Ed25519 private key; the 32-byte seed follows.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The Ed25519 public key (base58) of a 32-byte seed, as Keypair.fromSeed computes it. */
export function publicKeyFromSeed(seed: Uint8Array): string {
  if (seed.length !== 32) throw new RangeError('an Ed25519 seed is 32 bytes');
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return encodeBase58(spki.subarray(spki.length - 32));
}

/**
 * Wallets and mints of one simulated cluster: real (on-curve) public keys derived from the cluster
 * seed and a stable label, so a key does not depend on the order things were generated in.
 */
export class KeyBook {
  private readonly cache = new Map<string, string>();

  constructor(private readonly seed: string) {}

  key(label: string): string {
    let key = this.cache.get(label);
    if (key === undefined) {
      key = publicKeyFromSeed(createHash('sha256').update(`hadron-sim/${this.seed}/key/${label}`).digest());
      this.cache.set(label, key);
    }
    return key;
  }
}
