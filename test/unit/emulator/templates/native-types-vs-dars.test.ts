/**
 * Every native template's description of its LF types (`payloadType`, each choice's
 * `argumentType`) against the template's real Daml-LF types in Splice's DARs (`../shared/dars`,
 * read with the emulator's own DAR reader): record field names and order, variant constructors,
 * enums, Optional, List, TextMap, GenMap, Numeric 10, ContractId, Party, Text, Int64, Time,
 * Date, Bool, Unit, recursively. Interactive submission encodes prepared transactions with these
 * descriptions, so any difference would change the transaction hash a wallet signs.
 */
import { describe, expect, it } from 'vitest';
import type { DecodedChoice } from '../../../../src/emulator/dar/index.js';
import { TemplateRegistry, type ChoiceDef, type TemplateDef } from '../../../../src/emulator/participant/templates.js';
import { PingId, registerPingTemplate } from '../../../../src/emulator/templates/admin-workflows/ping.js';
import { registerAmulet } from '../../../../src/emulator/templates/amulet/index.js';
import { registerTestTokenV1, TEST_TOKEN_V1_PACKAGE_ID } from '../../../../src/emulator/templates/test-token-v1/index.js';
import { registerTestTokenV2 } from '../../../../src/emulator/templates/test-token-v2/index.js';
import { rec, type NativeValueType } from '../../../../src/emulator/lf-value/native-type.js';
import { Tt1Types } from '../../../../src/emulator/templates/test-token-v1/values.js';
import { TOKEN_STANDARD_PACKAGES, TokenStandardTypes } from '../../../../src/emulator/templates/token-standard.js';
import { compareTypes, DarIndex } from '../../../support/lf-dar-types.js';
import { SHARED_DARS_URL } from '../../../support/shared-dars.js';


/**
 * Where a description may keep `any` or `custom`, and why. Keys are `template choice` (or
 * `template payload`) followed by the path inside the value.
 */
const ALLOWED_LOOSE: Record<string, string> = {};

function registry(): TemplateRegistry {
  const r = new TemplateRegistry();
  registerAmulet(r);
  registerTestTokenV1(r);
  registerTestTokenV2(r);
  registerPingTemplate(r);
  return r;
}

const short = (t: TemplateDef) => `${t.id.packageName}:${t.id.moduleName}:${t.id.entityName}`;

interface Comparison {
  what: string;
  differences: string[];
}

function compareAll(idx: DarIndex): { compared: Comparison[]; skipped: string[] } {
  const compared: Comparison[] = [];
  const skipped: string[] = [];
  const allowedAt = (what: string) => (path: string) => `${what}${path}` in ALLOWED_LOOSE;
  for (const t of registry().allTemplates()) {
    if (t.kind !== 'native') continue;
    const { packageId, moduleName, entityName } = t.id;
    if (!idx.packages.has(packageId)) {
      skipped.push(short(t));
      continue;
    }
    const lfTemplate = idx.template(packageId, moduleName, entityName);
    const what = `${short(t)} payload`;
    if (!lfTemplate) {
      compared.push({ what, differences: ['template not in its package'] });
      continue;
    }
    compared.push({
      what,
      differences: t.payloadType
        ? compareTypes(t.payloadType, idx.toNative(idx.templateType(packageId, moduleName, entityName)), '', allowedAt(`${what} `))
        : ['no payloadType'],
    });
    const choice = (owner: string, c: ChoiceDef, lfChoices: readonly DecodedChoice[] | undefined) => {
      const cw = `${short(t)} ${owner}${c.name}`;
      const lf = lfChoices?.find((x) => x.name === c.name);
      if (!lf?.argType) return compared.push({ what: cw, differences: ['choice not in the DAR'] });
      compared.push({ what: cw, differences: c.argumentType ? compareTypes(c.argumentType, idx.toNative(lf.argType), '', allowedAt(`${cw} `)) : ['no argumentType'] });
    };
    for (const c of Object.values(t.choices)) choice('', c, lfTemplate.choices);
    for (const impl of t.implements) {
      const i = impl.interface.id;
      const lfIface = idx.iface(i.packageId, i.moduleName, i.entityName);
      for (const c of Object.values(impl.choices)) choice(`${i.packageName}:${i.entityName}.`, c, lfIface?.choices);
    }
  }
  return { compared, skipped };
}

describe('native templates describe the LF types of Splice DARs', () => {
  const idx = DarIndex.load(SHARED_DARS_URL);
  const { compared, skipped } = compareAll(idx);

  it('every payload and choice argument matches its LF type', () => {
    const failures = compared.filter((c) => c.differences.length > 0).map((c) => `${c.what}\n    ${c.differences.join('\n    ')}`);
    expect(failures.join('\n')).toBe('');
  });

  it('compares every native template of a package among the DARs (and says which it skips)', () => {
    // Ping's package (canton-builtin-admin-workflow-ping) ships with Canton, not among Splice's DARs.
    expect(skipped).toEqual(['canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping']);
    // Without its DAR, Ping is checked against its Daml (`Canton.Internal.Ping`): id, initiator, responder.
    const ping = registry().templateById(PingId)!;
    expect(ping.payloadType).toEqual(rec(['id', 'text'], ['initiator', 'party'], ['responder', 'party']));
    expect(Object.fromEntries(Object.values(ping.choices).map((c) => [c.name, c.argumentType]))).toEqual({
      Respond: rec(),
      AbortPing: rec(['anyone', 'party']),
      Archive: rec(),
    });
    const payloads = compared.filter((c) => c.what.endsWith(' payload')).map((c) => c.what.replace(/ payload$/, ''));
    expect(payloads).toEqual([
      'splice-amulet:Splice.AmuletRules:AmuletRules',
      'splice-amulet:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
      'splice-amulet:Splice.Round:OpenMiningRound',
      'splice-amulet:Splice.Round:SummarizingMiningRound',
      'splice-amulet:Splice.Amulet:Amulet',
      'splice-amulet:Splice.Amulet:LockedAmulet',
      'splice-amulet:Splice.Amulet:FeaturedAppRight',
      'splice-amulet:Splice.Amulet:FeaturedAppActivityMarker',
      'splice-amulet:Splice.AmuletRules:TransferPreapproval',
      'splice-amulet:Splice.AmuletTransferInstruction:AmuletTransferInstruction',
      'splice-amulet:Splice.AmuletAllocation:AmuletAllocation',
      'splice-amulet:Splice.AmuletAllocationV2:AmuletAllocationV2',
      'splice-amulet:Splice.ExternalPartyConfigState:ExternalPartyConfigState',
      'splice-wallet:Splice.Wallet.TransferOffer:TransferOffer',
      'splice-wallet:Splice.Wallet.TransferOffer:AcceptedTransferOffer',
      'splice-wallet:Splice.Wallet.Install:WalletAppInstall',
      'splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal',
      'splice-amulet:Splice.DecentralizedSynchronizer:MemberTraffic',
      'splice-wallet:Splice.Wallet.BuyTrafficRequest:BuyTrafficRequest',
      'splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:Token',
      'splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:TokenTransferOffer',
      'splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:TokenAllocation',
      'splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:TokenRules',
      'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2:TokenRules',
      'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Holding:Token',
      'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Transfer:TokenTransferOffer',
      'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Allocation:TokenAllocationInstructionV2',
      'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Allocation:TokenAllocationV2',
      'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Allocation:TokenAllocationInstructionV1',
      'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Allocation:TokenAllocationV1',
      'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.AccountConfig:AccountConfig',
      'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.AccountConfig:AccountProposal',
    ]);
    // 32 payloads and 198 choice arguments (template choices, Archive included, and interface choices).
    expect(compared.length).toBe(230);
    // Spot checks that interface choices of both API versions are among them.
    const names = compared.map((c) => c.what);
    for (const expected of [
      'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2:TokenRules splice-api-token-transfer-instruction-v2:TransferFactory.TransferFactory_Transfer',
      'splice-test-token-v2:Splice.Testing.Tokens.TestTokenV2.Allocation:TokenAllocationV1 splice-api-token-allocation-v1:Allocation.Allocation_ExecuteTransfer',
      'splice-amulet:Splice.AmuletAllocationV2:AmuletAllocationV2 splice-api-token-allocation-v2:Allocation.Allocation_Settle',
      'splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:TokenRules splice-api-token-allocation-instruction-v1:AllocationFactory.AllocationFactory_Allocate',
      'splice-wallet:Splice.Wallet.Install:WalletAppInstall WalletAppInstall_ExecuteBatch',
      'splice-amulet:Splice.Amulet:FeaturedAppRight splice-api-featured-app-v1:FeaturedAppRight.FeaturedAppRight_CreateActivityMarker',
      'splice-amulet:Splice.AmuletRules:AmuletRules AmuletRules_BootstrapExternalPartyConfigState',
      'splice-amulet:Splice.AmuletRules:AmuletRules AmuletRules_UpdateExternalPartyConfigStates',
    ]) {
      expect(names).toContain(expected);
    }
  });

  it('leaves no `any` or `custom` in a description (the allow-list is empty)', () => {
    expect(ALLOWED_LOOSE).toEqual({});
  });
});

describe('the comparison itself', () => {
  const idx = DarIndex.load(SHARED_DARS_URL);
  const holdingV1 = idx.toNative(idx.templateType(TEST_TOKEN_V1_PACKAGE_ID, 'Splice.Testing.Tokens.TestTokenV1', 'Token'));
  const described = Tt1Types.Token;

  it('accepts the description and reports each kind of difference with its path', () => {
    expect(compareTypes(described, holdingV1)).toEqual([]);
    const holding = (fields: ReadonlyArray<readonly [string, NativeValueType]>): NativeValueType => rec(['holding', { rec: fields }]);
    const real = (described as { rec: ReadonlyArray<readonly [string, { rec: ReadonlyArray<readonly [string, NativeValueType]> }]> }).rec[0]![1].rec;
    // field order
    expect(compareTypes(holding([real[1]!, real[0]!, ...real.slice(2)]), holdingV1)).toEqual([
      '.holding: record fields (instrumentId,owner,amount,lock,meta) vs (owner,instrumentId,amount,lock,meta)',
    ]);
    // Optional dropped, Numeric as Text, TextMap as a record, `any`
    const lockless = real.map(([n, t]): readonly [string, NativeValueType] => (n === 'lock' ? [n, 'any'] : n === 'amount' ? [n, 'text'] : [n, t]));
    expect(compareTypes(holding(lockless), holdingV1)).toEqual(['.holding.amount: text vs decimal', '.holding.lock: any (not allowed here) vs opt']);
    expect(compareTypes(holding(lockless), holdingV1, '', (p) => p === '.holding.lock')).toEqual(['.holding.amount: text vs decimal']);
    const metaAsRecord = real.map(([n, t]): readonly [string, NativeValueType] => (n === 'meta' ? [n, rec(['values', rec(['k', 'text'])])] : [n, t]));
    expect(compareTypes(holding(metaAsRecord), holdingV1)).toEqual(['.holding.meta.values: rec vs textMap']);
  });

  it('reads Numeric scales other than 10, Date and recursive variants from the DARs', () => {
    const anyValue = idx.toNative({
      kind: 'con',
      tycon: { packageId: TOKEN_STANDARD_PACKAGES['splice-api-token-metadata-v1'].id, moduleName: 'Splice.Api.Token.MetadataV1', entityName: 'AnyValue' },
      args: [],
    });
    expect(compareTypes(TokenStandardTypes.AnyValue, anyValue)).toEqual([]);
    expect(typeof anyValue === 'object' && 'variant' in anyValue ? anyValue.variant.AV_Date : undefined).toBe('date');
    const numeric5 = idx.toNative({ kind: 'builtin', name: 'Numeric', args: [{ kind: 'nat', value: 5 }] });
    expect(compareTypes('decimal', numeric5)).toEqual(['<root>: decimal vs custom(Numeric 5)']);
  });
});
