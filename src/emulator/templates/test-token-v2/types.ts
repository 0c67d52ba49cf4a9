/**
 * The Daml-LF types of TestTokenV2's payloads and of its own choices' arguments
 * (`splice-test-token-v2` 1.0.0, modules `Splice.Testing.Tokens.TestTokenV2*`), field by field in
 * declaration order, for encoding them (interactive submission's prepared transactions). Reading
 * keeps the parsers of values.ts; the token-standard records come from token-standard.ts, and the
 * interface choices' arguments are the interfaces' (`TokenStandardTypes.choiceArgs`, filled in by
 * `describeInterfaceChoices`). Checked against the DAR by native-types-vs-dars.test.ts.
 */
import { list, opt, rec, type NativeValueType } from '../../lf-value/native-type.js';
import { TokenStandardTypes } from '../token-standard.js';
import { AA_TAGS, AIA_TAGS, TIA_TAGS } from './values.js';

const { Account, InstrumentId, HoldingViewV2, TransferV2, SettlementInfoV2, AllocationSpecificationV2, ExtraArgs } = TokenStandardTypes;

/** An action variant (`TransferInstructionAction`, …): unit constructors, then `*_Custom with id : Text`. */
function actionVariant(tags: readonly string[]): NativeValueType {
  const custom = tags[tags.length - 1]!;
  return { variant: Object.fromEntries(tags.map((t): [string, NativeValueType] => [t, t === custom ? rec(['id', 'text']) : 'unit'])) };
}
const TIA = actionVariant(TIA_TAGS);
const AIA = actionVariant(AIA_TAGS);
const AA = actionVariant(AA_TAGS);
/** `Map action [Party]` and `Map action [[Party]]` (DA.Map, a GenMap in LF). */
const authorizers = (action: NativeValueType): NativeValueType => ({ map: [action, list('party')] });
const available = (action: NativeValueType): NativeValueType => ({ map: [action, list(list('party'))] });

const PartyConfig = rec(['canInitiate', 'bool'], ['mustApprove', 'bool']);
const AccountConfig = rec(['admin', 'party'], ['account', Account], ['ownerConfig', PartyConfig], ['providerConfig', PartyConfig]);

const TokenAllocationInstructionV2 = rec(
  ['originalInstructionCid', opt('cid')],
  ['actionAuthorizers', authorizers(AIA)],
  ['availableActions', available(AIA)],
  ['inputHoldingCids', { textMap: list('cid') }],
  ['settlement', SettlementInfoV2],
  ['allocation', AllocationSpecificationV2],
  ['admin', 'party'],
  ['requestedAt', 'time'],
  ['allocateBefore', opt('time')],
);
const TokenAllocationV2 = rec(
  ['originalAllocationCid', opt('cid')],
  ['actionAuthorizers', authorizers(AA)],
  ['availableActions', available(AA)],
  ['lockedTokens', { textMap: list('cid') }],
  ['settlement', SettlementInfoV2],
  ['allocation', AllocationSpecificationV2],
  ['requestedAt', 'time'],
  ['allocateBefore', opt('time')],
  ['numIterations', 'int'],
);
const authorizeAction = (action: NativeValueType, cidField: string) =>
  rec(['actor', 'party'], ['authorizer', 'party'], ['action', action], [cidField, 'cid'], ['extraArgs', ExtraArgs]);

export const Tt2Types = {
  TokenRules: rec(['admin', 'party']),
  OfferMint: rec(['receiver', Account], ['amount', 'decimal'], ['instrumentId', InstrumentId], ['offeredAt', 'time'], ['receiverConfig', AccountConfig]),
  Token: rec(['holding', HoldingViewV2]),
  TokenTransferOffer: rec(
    ['actionAuthorizers', authorizers(TIA)],
    ['availableActions', available(TIA)],
    ['transfer', TransferV2],
    ['originalInstructionCid', opt('cid')],
    ['mintAmount', 'decimal'],
  ),
  TokenAllocationInstructionV2,
  TokenAllocationV2,
  TokenAllocationInstructionV1: rec(['instrV2', TokenAllocationInstructionV2]),
  TokenAllocationV1: rec(['allocationV2', TokenAllocationV2]),
  AccountConfig,
  AccountProposal: rec(['config', AccountConfig]),
  AuthorizeTransferInstructionAction: authorizeAction(TIA, 'instrCid'),
  AuthorizeAllocationAction: authorizeAction(AA, 'allocationCid'),
  AuthorizeAllocationInstructionAction: authorizeAction(AIA, 'instrCid'),
  NoFields: rec(),
} as const;
