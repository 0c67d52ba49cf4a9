import { createHash } from 'node:crypto';

/**
 * Deterministic id generation. Every id the emulator mints (party namespaces, contract ids,
 * update ids, uuids) is derived from a seed and a counter, so a seeded run is reproducible.
 * Formats follow what real Canton nodes emit (`ParticipantNode.scala`, `CantonContractIdVersion.scala`).
 */
export class IdGenerator {
  private counter = 0;
  constructor(private readonly seed: string = 'token-registry') {}

  /** How many blocks have been drawn: what durable state saves so that ids continue after a restart. */
  get position(): number {
    return this.counter;
  }
  set position(n: number) {
    this.counter = n;
  }

  /** `n` bytes of deterministic pseudo-random data, hex encoded. */
  hex(bytes: number): string {
    let out = '';
    while (out.length < bytes * 2) {
      out += createHash('sha256').update(`${this.seed}/${this.counter++}`).digest('hex');
    }
    return out.slice(0, bytes * 2);
  }

  /** A fingerprint as Canton prints it: multihash prefix `1220` + SHA-256 hex. */
  fingerprint(): string {
    return `1220${this.hex(32)}`;
  }

  /** `1220` + 64 hex: the shape of a Canton update id. */
  updateId(): string {
    return this.fingerprint();
  }

  /** Contract id V1: `00` + 64 hex discriminator + `ca10` + `1220` + 64 hex (138 hex chars). */
  contractId(): string {
    return `00${this.hex(32)}ca10${this.fingerprint()}`;
  }

  /** RFC 4122 version-4 shaped uuid from deterministic bytes. */
  uuid(): string {
    const h = this.hex(16).split('');
    h[12] = '4';
    h[16] = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
    const s = h.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20, 32)}`;
  }
}

/** A fingerprint derived from a name, stable across runs and seeds (for participant/synchronizer ids). */
export function stableFingerprint(name: string): string {
  return `1220${createHash('sha256').update(name).digest('hex')}`;
}
