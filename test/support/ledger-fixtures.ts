/**
 * Test fixtures for the emulated ledger: an engine with a small native "Iou" model whose choices
 * exercise the interpreter's rules (nested creates, controller authority, interface dispatch),
 * and helpers to call the JSON API in-process.
 */
import { LedgerEngine, type LedgerEngineOptions } from '../../src/emulator/participant/engine.js';
import { createLedgerApiApp, ledgerApiRoutes } from '../../src/emulator/ledger-api/routes.js';
import type { LedgerApiDeps, RouteModule } from '../../src/emulator/ledger-api/route-module.js';
import { ArgumentError, type InterfaceDef, type TemplateDef } from '../../src/emulator/participant/templates.js';
import { ManualClock } from '../../src/canton/clock.js';
import type { QualifiedId } from '../../src/emulator/participant/types.js';
import { WILDCARD, type Claims, type UserClaims } from '../../src/emulator/participant/claims.js';

export const IOU_PKG = 'a'.repeat(64);
export const IFACE_PKG = 'b'.repeat(64);
export const ASSET_PKG = 'c'.repeat(64);

export const IOU_ID: QualifiedId = { packageId: IOU_PKG, packageName: 'test-iou', moduleName: 'Iou', entityName: 'Iou' };
export const HOLDING_IFACE: InterfaceDef = {
  id: { packageId: IFACE_PKG, packageName: 'test-holding', moduleName: 'Holding', entityName: 'Holding' },
  choices: ['Holding_Burn'],
};
export const ASSET_ID: QualifiedId = { packageId: ASSET_PKG, packageName: 'test-declared', moduleName: 'Main', entityName: 'Asset' };

interface Iou {
  issuer: string;
  owner: string;
  amount: string;
  observers: string[];
}

export const iouTemplate: TemplateDef<Iou> = {
  id: IOU_ID,
  kind: 'native',
  signatories: (p) => [p.issuer, p.owner],
  observers: (p) => p.observers,
  ensure: (p) => (Number(p.amount) > 0 ? undefined : 'amount must be positive'),
  parsePayload: (raw) => {
    const p = raw as Partial<Iou>;
    for (const f of ['issuer', 'owner', 'amount'] as const) {
      if (typeof p?.[f] !== 'string') throw new ArgumentError(`Missing non-optional field: ${f}`);
    }
    // A List Party, as LF types it: anything else is rejected, as Canton's value translation does.
    const observers: unknown = p.observers ?? [];
    if (!Array.isArray(observers) || !observers.every((o) => typeof o === 'string')) {
      throw new ArgumentError('Type mismatch: observers must be a list of parties');
    }
    return { issuer: p.issuer!, owner: p.owner!, amount: Number(p.amount).toFixed(10), observers };
  },
  choices: {
    Transfer: {
      name: 'Transfer',
      consuming: true,
      controllers: (p) => [p.owner],
      // creating the new Iou needs the issuer's authority: it comes from the contract's signatories
      body: (ctx, self, arg: { newOwner: string }) => ({
        newIou: ctx.create(IOU_ID, { ...self.payload, owner: arg.newOwner, observers: [] }),
      }),
    },
    Split: {
      name: 'Split',
      consuming: true,
      controllers: (p) => [p.owner],
      body: (ctx, self, arg: { amount: string }) => {
        const rest = Number(self.payload.amount) - Number(arg.amount);
        if (rest <= 0) ctx.fail('split amount too large');
        return {
          _1: ctx.create(IOU_ID, { ...self.payload, amount: arg.amount }),
          _2: ctx.create(IOU_ID, { ...self.payload, amount: String(rest) }),
        };
      },
    },
    Observe: {
      name: 'Observe',
      consuming: false,
      controllers: (p) => [p.owner],
      observers: (_p, arg: { reader: string }) => [arg.reader],
      body: (_ctx, self) => self.payload.amount,
    },
  },
  implements: [
    {
      interface: HOLDING_IFACE,
      view: (p) => ({ owner: p.owner, amount: p.amount }),
      choices: {
        Holding_Burn: { name: 'Holding_Burn', consuming: true, controllers: (p) => [p.owner, p.issuer], body: () => ({}) },
      },
    },
  ],
};

export const ACCOUNT_ID: QualifiedId = { packageId: IOU_PKG, packageName: 'test-iou', moduleName: 'Iou', entityName: 'Account' };

/** A keyed template: key (owner, label), maintained by the owner. */
export const accountTemplate: TemplateDef<{ owner: string; label: string; balance: string }> = {
  id: ACCOUNT_ID,
  kind: 'native',
  signatories: (p) => [p.owner],
  observers: () => [],
  key: { of: (p) => ({ _1: p.owner, _2: p.label }), maintainers: (k) => [(k as { _1: string })._1] },
  choices: {
    Deposit: {
      name: 'Deposit',
      consuming: true,
      controllers: (p) => [p.owner],
      body: (ctx, self, arg: { amount: string }) =>
        ctx.create(ACCOUNT_ID, { ...self.payload, balance: String(Number(self.payload.balance) + Number(arg.amount)) }),
    },
  },
  implements: [],
};

export interface TestLedger {
  engine: LedgerEngine;
  clock: ManualClock;
  app: ReturnType<typeof createLedgerApiApp>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  party(hint: string): string;
}

export function testLedger(opts: LedgerEngineOptions & Partial<Omit<LedgerApiDeps, 'engine'>> = {}): TestLedger {
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const engine = new LedgerEngine({ seed: 'test', clock, ...opts });
  engine.templates.register(iouTemplate);
  engine.templates.register(accountTemplate);
  engine.templates.declare({ id: ASSET_ID, signatories: ['owner'], observers: ['observers'] });
  const app = createLedgerApiApp({ engine, authenticate: opts.authenticate, logger: opts.logger }, ledgerApiRoutes);
  return {
    engine,
    clock,
    app,
    post: async (path, body, headers = {}) =>
      app.request(path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers }),
    get: async (path, headers = {}) => app.request(path, { headers }),
    party: (hint) => engine.parties.allocate(hint).party,
  };
}

let commandCounter = 0;
export function cmds(actAs: string[], commands: unknown[], extra: Record<string, unknown> = {}) {
  return { commands, commandId: `cmd-${++commandCounter}`, actAs, userId: 'tester', ...extra };
}
export const create = (templateId: string, createArguments: unknown) => ({ CreateCommand: { templateId, createArguments } });
export const exercise = (templateId: string, contractId: string, choice: string, choiceArgument: unknown = {}) => ({
  ExerciseCommand: { templateId, contractId, choice, choiceArgument },
});
export const IOU = '#test-iou:Iou:Iou';
export const HOLDING = '#test-holding:Holding:Holding';
export const ASSET = '#test-declared:Main:Asset';
export const ACCOUNT = '#test-iou:Iou:Account';

export function acsRequest(party: string, filter: unknown = null, extra: Record<string, unknown> = {}) {
  const cumulative = filter === null ? [] : [{ identifierFilter: filter }];
  return { eventFormat: { filtersByParty: { [party]: { cumulative } }, verbose: false }, activeAtOffset: 0, ...extra };
}

/** The claims of a regular user holding no right, with `o` overriding any field. */
export function userClaims(userId: string, o: Partial<UserClaims> = {}): UserClaims {
  return {
    kind: 'user',
    userId,
    identityProviderId: '',
    admin: false,
    idpAdmin: false,
    actAs: new Set(),
    readAs: new Set(),
    executeAs: new Set(),
    readAsAnyParty: false,
    executeAsAnyParty: false,
    ...o,
  };
}

/**
 * A ledger API app over `engine` with `routes`, whose bearer tokens are looked up in `table`
 * (no token, or an unknown one: WILDCARD claims), and `call`, one request with its status, text
 * and parsed JSON (undefined when the body is not JSON, e.g. tapir's text/plain 400).
 */
export function claimsTableApp(engine: LedgerEngine, routes: RouteModule[]) {
  const table = new Map<string, Claims>();
  const app = createLedgerApiApp(
    { engine, authenticate: async (h) => (h === undefined ? WILDCARD : (table.get(h.replace(/^Bearer /, '')) ?? WILDCARD)) },
    routes,
  );
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await app.request(path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    // the parsed JSON (undefined when the body is not JSON): read it with a wire schema or by narrowing
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text };
  };
  return { app, table, call };
}
