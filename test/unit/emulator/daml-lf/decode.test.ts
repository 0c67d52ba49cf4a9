import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeDar, type DecodedPackage } from '../../../../src/emulator/ledger/dar/index.js';
import { decodeDamlPackage, decodeDamlPackageWithStats } from '../../../../src/emulator/daml-lf/decode.js';
import type { DamlPackage, Expr } from '../../../../src/emulator/daml-lf/ast.js';

const DARS = '../shared/dars';
const darFiles = readdirSync(DARS).filter((f) => f.endsWith('.dar')).sort();

describe('decodeDamlPackage on the real DARs', () => {
  it.each(darFiles)('%s: every package decodes, matching the type-level decode', (file) => {
    const dar = decodeDar(readFileSync(`${DARS}/${file}`));
    const started = performance.now();
    let maxDepth = 0;
    const decoded: Array<[DecodedPackage, DamlPackage]> = [];
    for (const p of dar.packages) {
      const { pkg, stats } = decodeDamlPackageWithStats(p.packageId, p.payload);
      maxDepth = Math.max(maxDepth, stats.maxExprDepth);
      decoded.push([p, pkg]);
    }
    const ms = performance.now() - started;
    console.log(`${file}: ${dar.packages.length} packages decoded in ${ms.toFixed(0)} ms, max expression depth ${maxDepth}`);
    for (const [typeLevel, full] of decoded) expectSameShape(typeLevel, full);
  });
});

function expectSameShape(t: DecodedPackage, f: DamlPackage): void {
  expect(f.packageId).toBe(t.packageId);
  expect(f.name).toBe(t.name);
  expect(f.version).toBe(t.version);
  expect(f.lfVersion).toBe(t.lfVersion);
  expect(f.upgradedPackageId).toBe(t.upgradedPackageId);
  expect([...f.modules.keys()]).toEqual(t.modules.map((m) => m.name));
  for (const tm of t.modules) {
    const fm = f.modules.get(tm.name)!;
    expect([...fm.templates.keys()]).toEqual(tm.templates.map((x) => x.name));
    for (const tt of tm.templates) {
      const ft = fm.templates.get(tt.name)!;
      expect([...ft.choices.keys()]).toEqual(tt.choices.map((c) => c.name));
      for (const tc of tt.choices) {
        const fc = ft.choices.get(tc.name)!;
        expect(fc.consuming).toBe(tc.consuming);
        expect(fc.argBinder.type).toEqual(tc.argType);
        expect(fc.returnType).toEqual(tc.returnType);
      }
      expect([...ft.implements.keys()]).toEqual(tt.implements);
      expect(ft.key !== undefined).toBe(tt.hasKey);
    }
    expect([...fm.interfaces.keys()]).toEqual(tm.interfaces.map((x) => x.name));
    for (const ti of tm.interfaces) {
      const fi = fm.interfaces.get(ti.name)!;
      expect([...fi.choices.keys()]).toEqual(ti.choices.map((c) => c.name));
      expect([...fi.methods.keys()]).toEqual(ti.methods);
      expect(fi.requires).toEqual(ti.requires);
      expect(fi.view).toEqual(ti.viewType);
    }
    expect([...fm.dataTypes.values()]).toEqual(tm.dataTypes);
  }
}

// ---- spot checks on TestTokenV1 ------------------------------------------------------------------

const TOKEN_V1 = 'aaa0b576b5a3db49b3a4f7a4710fe6f8ae462aabbde4da89f639eb87fd62e90c';
const HOLDING_V1 = '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b';
const TRANSFER_INSTRUCTION_V1 = '55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281';

function packagesOf(file: string): Map<string, DamlPackage> {
  const out = new Map<string, DamlPackage>();
  for (const p of decodeDar(readFileSync(`${DARS}/${file}`)).packages) out.set(p.packageId, decodeDamlPackage(p.packageId, p.payload));
  return out;
}

/** Every expression node under `root` (ast objects, Maps and arrays walked; types skipped). */
function exprsUnder(root: unknown): Expr[] {
  const out: Expr[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const x = stack.pop();
    if (Array.isArray(x)) stack.push(...x);
    else if (x instanceof Map) stack.push(...x.values());
    else if (x !== null && typeof x === 'object') {
      if ('kind' in x) continue; // an LfType
      if (isExpr(x)) out.push(x);
      for (const [k, v] of Object.entries(x)) if (k !== 'tycon' && k !== 'ref') stack.push(v);
    }
  }
  return out;
}
/** Expressions have a string `tag`; so do updates (`{ tag: 'update', update }` holds them), which is fine for these searches. */
function isExpr(x: object): x is Expr {
  return 'tag' in x && typeof x.tag === 'string';
}

describe('decodeDamlPackage: TestTokenV1', () => {
  const pkgs = packagesOf('splice-test-token-v1-1.0.0.dar');
  const mod = pkgs.get(TOKEN_V1)!.modules.get('Splice.Testing.Tokens.TestTokenV1')!;

  it('decodes the templates with their parameters and interface instances', () => {
    expect([...mod.templates.keys()].sort()).toEqual(['Token', 'TokenAllocation', 'TokenRules', 'TokenTransferOffer']);
    const token = mod.templates.get('Token')!;
    expect(token.tycon).toEqual({ packageId: TOKEN_V1, moduleName: 'Splice.Testing.Tokens.TestTokenV1', entityName: 'Token' });
    expect(token.param).toBe('this');
    // No choices of its own: only the implicit Archive, which the compiler writes out.
    expect([...token.choices.keys()]).toEqual(['Archive']);
    expect(token.choices.get('Archive')!.consuming).toBe(true);
    expect(token.location?.moduleName).toBe('Splice.Testing.Tokens.TestTokenV1');
    // `implements HoldingV1.Holding where view = holding`: no methods, a view applied to the contract.
    const holding = token.implements.get(`${HOLDING_V1}:Splice.Api.Token.HoldingV1:Holding`)!;
    expect(holding.methods.size).toBe(0);
    expect(holding.view).toMatchObject({ tag: 'app', fun: { tag: 'val' }, args: [{ tag: 'var', name: 'this' }] });
    // TokenRules implements both factories; each instance has its methods and view.
    const rules = mod.templates.get('TokenRules')!;
    const allocFactory = [...rules.implements.values()].find((i) => i.iface.entityName === 'AllocationFactory')!;
    expect([...allocFactory.methods.keys()].sort()).toEqual(['allocationFactory_allocateImpl', 'allocationFactory_publicFetchImpl']);
    expect(allocFactory.view.tag).toBe('app');
  });

  it("decodes Token's signatories: a call of the signatory function on `this`", () => {
    const sig = mod.templates.get('Token')!.signatories;
    expect(sig).toMatchObject({ tag: 'app', fun: { tag: 'val' }, args: [{ tag: 'var', name: 'this' }] });
    if (sig.tag !== 'app' || sig.fun.tag !== 'val') throw new Error('unexpected shape');
    const def = mod.values.get(sig.fun.ref.name)!;
    // λ(this : Token). let ds = this.holding in concat [toParties ds.instrumentId.admin, toParties ds.owner]
    expect(def.expr).toMatchObject({ tag: 'abs', params: [{ name: 'this' }], body: { tag: 'let' } });
    const projections = exprsUnder(def.expr).filter((e) => e.tag === 'recProj').map((e) => (e.tag === 'recProj' ? e.field : ''));
    expect(projections).toEqual(expect.arrayContaining(['holding', 'instrumentId', 'admin', 'owner']));
  });

  it("decodes Token's ensure: `amount > 0.0` at scale 10, then the PreconditionFailed throw", () => {
    const precond = mod.templates.get('Token')!.precond;
    expect(precond).toMatchObject({ tag: 'case', alts: [{ pattern: { pat: 'bool', value: true } }, { pattern: { pat: 'bool', value: false }, body: { tag: 'throw' } }] });
    if (precond.tag !== 'case' || precond.scrut.tag !== 'app' || precond.scrut.fun.tag !== 'val') throw new Error('unexpected shape');
    const ensure = mod.values.get(precond.scrut.fun.ref.name)!;
    const lits = exprsUnder(ensure.expr).flatMap((e) => (e.tag === 'lit' ? [e.value] : []));
    expect(lits).toContainEqual({ lit: 'numeric', scale: 10, unscaled: 0n });
    expect(exprsUnder(ensure.expr)).toContainEqual({ tag: 'builtin', name: 'GREATER' });
  });

  it("decodes an interface choice's controllers: TransferFactory_Transfer is controlled by transfer.sender", () => {
    const ti = pkgs.get(TRANSFER_INSTRUCTION_V1)!.modules.get('Splice.Api.Token.TransferInstructionV1')!;
    const factory = ti.interfaces.get('TransferFactory')!;
    expect(factory.param).toBe('this');
    expect([...factory.methods.keys()].sort()).toEqual(['transferFactory_publicFetchImpl', 'transferFactory_transferImpl']);
    const choice = factory.choices.get('TransferFactory_Transfer')!;
    expect(choice.consuming).toBe(false);
    expect(choice.selfBinder).toBe('self');
    expect(choice.argBinder.name).toBe('arg');
    // (λ this arg. let ds1 = arg.transfer in toParties ds1.sender) this arg
    expect(choice.controllers).toMatchObject({
      tag: 'app',
      fun: { tag: 'abs', params: [{ name: 'this' }, { name: 'arg' }] },
      args: [{ tag: 'var', name: 'this' }, { tag: 'var', name: 'arg' }],
    });
    const fields = exprsUnder(choice.controllers).flatMap((e) => (e.tag === 'recProj' ? [e.field] : []));
    expect(fields.sort()).toEqual(['sender', 'transfer']);
    expect(choice.observers).toBeDefined();
    expect(choice.update).toMatchObject({ tag: 'app', fun: { tag: 'abs', params: [{ name: 'self' }, { name: 'this' }, { name: 'arg' }] } });
  });
});
