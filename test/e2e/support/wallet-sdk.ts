/**
 * Helpers for driving the official wallet SDK (@canton-network/wallet-sdk@1.4.0) against the
 * emulated stack the way a wallet does: one SDK per user, configured with nothing but the ledger
 * URL and the registry URL (`SDK.create` with `ledgerClientUrl` and `token.registries`).
 */
import { CustomLogAdapter, SDK } from '@canton-network/wallet-sdk';

/**
 * LocalNet's self-signed HS256 token (core-wallet-auth `self_signed`, secret `unsafe`). With the
 * emulator's auth off the ledger ignores it; the SDK still needs it to learn its user id (the
 * token's `sub`), because `GET /v2/authenticated-user` fails when auth is off
 * (.notes/official-client.md §4).
 */
export function selfSignedAuth(userId: string) {
  return {
    method: 'self_signed' as const,
    issuer: 'unsafe-auth',
    credentials: { clientId: userId, clientSecret: 'unsafe', audience: 'https://canton.network.global', scope: '' },
  };
}

/** `SDK.create` with the `token` and `asset` namespaces pointed at one registry. */
export function createWalletSdk(ledgerUrl: string, registryUrl: string, userId: string) {
  const auth = selfSignedAuth(userId);
  return SDK.create({
    auth,
    ledgerClientUrl: ledgerUrl,
    logAdapter: new CustomLogAdapter(() => {}),
    token: { auth, registries: [registryUrl] },
    asset: { auth, registries: [registryUrl] },
  });
}

export type WalletSdk = Awaited<ReturnType<typeof createWalletSdk>>;

/** Daml Decimal scale (10 decimal places). */
const SCALE = 10n ** 10n;

/** A Daml Decimal text ("12.5", "1000.0000000000") as an integer count of 10^-10 units. */
export function toUnits(amount: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,10}))?$/.exec(amount);
  if (!m) throw new Error(`not a decimal: ${amount}`);
  const v = BigInt(m[2]!) * SCALE + BigInt((m[3] ?? '').padEnd(10, '0'));
  return m[1] ? -v : v;
}

/** Units back to the shortest decimal text ("975", "12.5"). */
export function fromUnits(units: bigint): string {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const frac = (abs % SCALE).toString().padStart(10, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${abs / SCALE}${frac ? `.${frac}` : ''}`;
}

/** A decimal text as the JSON Ledger API renders a Daml Decimal: all 10 decimal places ("20" → "20.0000000000"). */
export function asDamlDecimal(amount: string): string {
  const units = toUnits(amount);
  const abs = units < 0n ? -units : units;
  return `${units < 0n ? '-' : ''}${abs / SCALE}.${(abs % SCALE).toString().padStart(10, '0')}`;
}

export interface Balance {
  /** Sum of the unlocked holdings. */
  unlocked: string;
  /** Sum of the locked holdings (funds in a pending offer or an allocation). */
  locked: string;
}

/**
 * A party's holdings of one instrument, read through the SDK (`token.utxos.list`: ledger-end +
 * the ACS filtered by the HoldingV1 interface with its view), summed by lock state.
 */
export async function balanceOf(sdk: Pick<WalletSdk, 'token'>, party: string, instrument: { admin: string; id: string }): Promise<Balance> {
  // includeLocked must be explicit: the SDK drops locked holdings when it is undefined, although
  // its type documentation says it defaults to true.
  const utxos = await sdk.token.utxos.list({ partyId: party, includeLocked: true });
  let unlocked = 0n;
  let locked = 0n;
  for (const u of utxos) {
    const view = u.interfaceViewValue;
    if (view.owner !== party || view.instrumentId.admin !== instrument.admin || view.instrumentId.id !== instrument.id) continue;
    if (view.lock) locked += toUnits(view.amount);
    else unlocked += toUnits(view.amount);
  }
  return { unlocked: fromUnits(unlocked), locked: fromUnits(locked) };
}

/** `from` plus `delta` (decimal texts). */
export function plus(from: string, delta: string): string {
  return fromUnits(toUnits(from) + toUnits(delta));
}
