/**
 * The wallets of a validator's users (Splice `UserWalletManager`, `UserWalletAuthExtractor`): one
 * per active `WalletAppInstall` of this validator, looked up by its `endUserName`; the 404 / 403
 * of the wallet endpoints; the user status and the validator's featured-app right.
 */
import type { JsonObject } from '../scan/encode.js';
import type { WalletAppInstallPayload } from '../templates/amulet/index.js';
import { notFound, ValidatorError } from './errors.js';
import { KEY, type UserWallet, type WalletStore } from './wallet-store.js';

export class WalletInstalls {
  constructor(private readonly store: WalletStore) {}

  /** The active WalletAppInstalls of this validator. */
  installs(): Array<UserWallet['install']> {
    return this.store.active(KEY.install, this.store.validatorParty).filter(
      (c) => (c.payload as WalletAppInstallPayload).validatorParty === this.store.validatorParty,
    ) as Array<UserWallet['install']>;
  }

  /** `UserWalletManager.lookupUserWallet`: by the install's `endUserName`. */
  lookupWallet(user: string): UserWallet | undefined {
    const install = this.installs().find((c) => c.payload.endUserName === user);
    return install ? { user, party: install.payload.endUserParty, install } : undefined;
  }

  /** The install of a party's wallet on this validator (automation). */
  installOfParty(party: string): UserWallet['install'] | undefined {
    return this.installs().find((c) => c.payload.endUserParty === party);
  }

  /**
   * `UserWalletAuthExtractor`: the wallet of an authenticated user, or the 404 / 403 the
   * validator answers. `reason` of a 403 is logged only.
   */
  authorize(user: string, operationId: string): UserWallet {
    const wallet = this.lookupWallet(user);
    if (!wallet) throw notFound(`No wallet found for user '${user}' for operation '${operationId}'`);
    const record = this.store.engine.users.get(user);
    let reason: string | undefined;
    if (!record) reason = 'User not found';
    else if (record.isDeactivated) reason = 'User is deactivated';
    else if (!this.store.engine.users.rights(user).some((r) => r.kind === 'CanActAs' && r.party === wallet.party)) {
      reason = `User may not act as wallet party ${wallet.party}`;
    }
    if (reason !== undefined) {
      this.store.logger?.warn(`Authorization Failed for ${user} for operation '${operationId}'. Reason: ${reason}`);
      throw new ValidatorError(403, `Authorization Failed for ${user}`);
    }
    return wallet;
  }

  /** `GET /v0/wallet/user-status` (authentication only: the user may have no wallet). */
  userStatus(user: string): JsonObject {
    const w = this.lookupWallet(user);
    const featured = w !== undefined && this.store.active(KEY.featured, w.party).some((c) => (c.payload as { provider: string; dso: string }).provider === w.party);
    return { party_id: w?.party ?? '', user_onboarded: w !== undefined, user_wallet_installed: w !== undefined, has_featured_app_right: featured };
  }

  /** Whether the validator party has a FeaturedAppRight (`GET /v0/validator-user` `featured`). */
  validatorFeatured(): boolean {
    return this.store.active(KEY.featured, this.store.validatorParty).some((c) => (c.payload as { provider: string }).provider === this.store.validatorParty);
  }
}
