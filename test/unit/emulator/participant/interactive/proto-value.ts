/**
 * Reading the Daml values of a decoded prepared transaction (the protobuf-ts `Value` of
 * @canton-network/core-ledger-proto) in the oracle tests: a value's `sum` as the case the test
 * expects, a record's field by label, the input contracts. Each fails the test, with the value
 * printed, when the value is not what the test expects.
 */
import type { Create, PreparedTransaction, Value } from '@canton-network/core-ledger-proto';

type Sum = Value['sum'];
type Kind = Exclude<Sum['oneofKind'], undefined>;

function isKind<K extends Kind>(sum: Sum, kind: K): sum is Extract<Sum, { oneofKind: K }> {
  return sum.oneofKind === kind;
}

/** The `sum` of `v` as its case `kind`. */
export function sumOf<K extends Kind>(v: Value | undefined, kind: K): Extract<Sum, { oneofKind: K }> {
  if (v !== undefined && isKind(v.sum, kind)) return v.sum;
  throw new Error(`not a ${kind}: ${JSON.stringify(v)}`);
}

/** The value of the field `label` of the record `v`. */
export function field(v: Value | undefined, label: string): Value {
  const value = sumOf(v, 'record').record.fields.find((f) => f.label === label)?.value;
  if (value === undefined) throw new Error(`no field ${label}: ${JSON.stringify(v)}`);
  return value;
}

/** The input contracts of a prepared transaction, each of the `v1` form. */
export function inputContracts(tx: PreparedTransaction): Create[] {
  return tx.metadata!.inputContracts.map((ic) => {
    if (ic.contract.oneofKind !== 'v1') throw new Error(`not a v1 input contract: ${ic.contract.oneofKind}`);
    return ic.contract.v1;
  });
}
