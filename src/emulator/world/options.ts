/**
 * The demo world's configuration (DEMO_WORLD_FILE): its types and schema, owned by the seeding code (seed.ts) and
 * kept apart from it so config/ can assemble the configuration without loading the engine and
 * the templates. Depends on zod and the user-id rule only.
 */
import { z } from 'zod';
import { userIdError } from '../participant/object-meta.js';
import type { HostingPermission } from '../participant/types.js';

export type TokenImplementation = 'splice-test-token-v1' | 'splice-test-token-v2';

export interface DemoInstrument {
  token: TokenImplementation;
  /** Hint of the admin party (one of `parties`). */
  admin: string;
  id: string;
  name: string;
  symbol: string;
  decimals: number;
  /** Holdings minted at start: owner hint and amount. */
  holdings: Array<{ owner: string; amount: string }>;
}

export interface DemoAmulet {
  /** Hint of the DSO party (created, with a user of the same name). */
  dso: string;
  /** Hint of the validator operator party (hosts the wallets, like a LocalNet validator). */
  validator: string;
  /**
   * The validator's ledger API user (`GET /api/validator/v0/validator-user` `user_name`): it gets
   * the validator party as primary party, CanActAs it and ParticipantAdmin, as the Splice validator
   * sets up its own user. Default `ledger-api-user`, LocalNet's.
   */
  validatorUser?: string;
  /** Canton Coin tapped at start (DevNet tap). */
  holdings: Array<{ owner: string; amount: string }>;
  /** Parties with a wallet (WalletAppInstall) on the validator. */
  wallets: string[];
  /** Parties with a FeaturedAppRight. */
  featuredApps: string[];
  /**
   * The AmuletConfig's `transferPreapprovalBaseDuration` in days (CIP-0119; the Daml default, 90,
   * when unset): how long a pre-approval is free. 0 reproduces networks before splice-amulet 0.1.20,
   * where the provider (the validator, for the wallet SDK's proposals) pays for every pre-approval.
   */
  transferPreapprovalBaseDurationDays?: number;
}

/** Another participant that also hosts a demo party (its PartyToParticipant mapping names both). */
export interface DemoHosting {
  /** Participant name, e.g. `participant2` (needs `PARTICIPANTS=2`). */
  participant: string;
  permission: HostingPermission;
}

/**
 * A further ledger API user of the world, as a Canton bootstrap script creates one
 * (`participant.ledger_api.users.create(id, actAs, readAs, ..., primaryPartyId)`), e.g. a second
 * operator user on an existing party. Parties are named by their hints.
 */
export interface DemoUser {
  id: string;
  /** The participant whose user it is (default: the first; `participant2` needs `PARTICIPANTS=2`). */
  participant?: string;
  primaryParty?: string;
  rights: {
    actAs: string[];
    readAs: string[];
    executeAs: string[];
    participantAdmin: boolean;
    identityProviderAdmin: boolean;
    readAsAnyParty: boolean;
    executeAsAnyParty: boolean;
  };
}

export interface DemoWorld {
  /**
   * Party hints; each becomes `hint::<participant namespace>` on the first participant (or on
   * `participant`, another one by name), with submission rights, and a user `userId` (default: the
   * hint) there. `hostedOn` lists further participants hosting it from the start; each gets the
   * user too (CanActAs with Submission, else CanReadAs). `operatorUser` is a ledger user set up on
   * the allocating participant as a Splice validator sets up its own (`setUpValidatorUser`).
   */
  parties: Array<{ hint: string; role: string; participant?: string; userId?: string; operatorUser?: string; hostedOn?: DemoHosting[] }>;
  instruments: DemoInstrument[];
  /** A Canton Coin world (DSO, rules, rounds, tapped coin, wallets); absent: none. */
  amulet?: DemoAmulet;
  /**
   * Further users, created after everything else. One that exists already (a party's own user, the
   * validator's user, one of LEDGER_ADMIN_USERS) gets the declared rights added, and its primary
   * party set when one is declared.
   */
  users?: DemoUser[];
}

/** The demo world as configuration (DEMO_WORLD_FILE), validated with clear messages. */
export const DemoWorldSchema = z
  .object({
    parties: z.array(
      z
        .object({
          hint: z.string().regex(/^[A-Za-z0-9:_ -]{1,200}$/),
          role: z.string().default(''),
          participant: z.string().regex(/^[A-Za-z0-9_-]+$/).optional(),
          userId: z.string().regex(/^[A-Za-z0-9@^$.!`\-#+'~_|:]{1,128}$/).optional(),
          operatorUser: z.string().regex(/^[A-Za-z0-9@^$.!`\-#+'~_|:]{1,128}$/).optional(),
          hostedOn: z
            .array(z.object({ participant: z.string().regex(/^[A-Za-z0-9_-]+$/), permission: z.enum(['Submission', 'Confirmation', 'Observation']) }).strict())
            .optional(),
        })
        .strict(),
    ),
    instruments: z
      .array(
        z
          .object({
            token: z.enum(['splice-test-token-v1', 'splice-test-token-v2']),
            admin: z.string().min(1),
            id: z.string().min(1),
            name: z.string().min(1),
            symbol: z.string().min(1),
            decimals: z.number().int().min(0).max(10).default(10),
            holdings: z.array(z.object({ owner: z.string().min(1), amount: z.string().regex(/^\d+(\.\d{1,10})?$/) }).strict()).default([]),
          })
          .strict(),
      )
      .default([]),
    amulet: z
      .object({
        dso: z.string().min(1),
        validator: z.string().min(1),
        validatorUser: z.string().min(1).optional(),
        holdings: z.array(z.object({ owner: z.string().min(1), amount: z.string().regex(/^\d+(\.\d{1,10})?$/) }).strict()).default([]),
        wallets: z.array(z.string().min(1)).default([]),
        featuredApps: z.array(z.string().min(1)).default([]),
        transferPreapprovalBaseDurationDays: z.number().int().min(0).max(36_500).optional(),
      })
      .strict()
      .optional(),
    users: z
      .array(
        z
          .object({
            id: z.string().min(1),
            participant: z.string().regex(/^[A-Za-z0-9_-]+$/).optional(),
            primaryParty: z.string().min(1).optional(),
            rights: z
              .object({
                actAs: z.array(z.string().min(1)).default([]),
                readAs: z.array(z.string().min(1)).default([]),
                executeAs: z.array(z.string().min(1)).default([]),
                participantAdmin: z.boolean().default(false),
                identityProviderAdmin: z.boolean().default(false),
                readAsAnyParty: z.boolean().default(false),
                executeAsAnyParty: z.boolean().default(false),
              })
              .strict()
              .default({ actAs: [], readAs: [], executeAs: [], participantAdmin: false, identityProviderAdmin: false, readAsAnyParty: false, executeAsAnyParty: false }),
          })
          .strict(),
      )
      .default([]),
  })
  .strict()
  .superRefine((w, ctx) => {
    const hints = new Set(w.parties.map((p) => p.hint));
    const seen = new Set<string>();
    w.users.forEach((u, n) => {
      const invalid = userIdError(u.id);
      if (invalid !== undefined) ctx.addIssue({ code: 'custom', path: ['users', n, 'id'], message: invalid });
      const key = `${u.participant ?? ''}/${u.id}`;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['users', n, 'id'], message: `user "${u.id}" is declared twice` });
      seen.add(key);
      if (u.primaryParty !== undefined && !hints.has(u.primaryParty)) {
        ctx.addIssue({ code: 'custom', path: ['users', n, 'primaryParty'], message: `unknown party hint "${u.primaryParty}"` });
      }
      for (const kind of ['actAs', 'readAs', 'executeAs'] as const) {
        u.rights[kind].forEach((h, m) => {
          if (!hints.has(h)) ctx.addIssue({ code: 'custom', path: ['users', n, 'rights', kind, m], message: `unknown party hint "${h}"` });
        });
      }
    });
    if (w.amulet) {
      const a = w.amulet;
      for (const [path, hint] of [['dso', a.dso], ['validator', a.validator]] as const) {
        if (!hints.has(hint)) ctx.addIssue({ code: 'custom', path: ['amulet', path], message: `unknown party hint "${hint}"` });
      }
      for (const h of [...a.holdings.map((x) => x.owner), ...a.wallets, ...a.featuredApps]) {
        if (!hints.has(h)) ctx.addIssue({ code: 'custom', path: ['amulet'], message: `unknown party hint "${h}"` });
      }
    }
    w.instruments.forEach((i, n) => {
      if (!hints.has(i.admin)) ctx.addIssue({ code: 'custom', path: ['instruments', n, 'admin'], message: `unknown party hint "${i.admin}"` });
      i.holdings.forEach((h, m) => {
        if (!hints.has(h.owner)) ctx.addIssue({ code: 'custom', path: ['instruments', n, 'holdings', m, 'owner'], message: `unknown party hint "${h.owner}"` });
      });
    });
  });

/** The demo world's fields of the emulator configuration. */
export const SeedOptionsShape = {
  demoWorld: z.boolean().default(true).describe('Seed the demo world at start (parties, users, instruments, holdings).'),
  world: DemoWorldSchema.optional().describe('Replace the default demo world.'),
};
