/**
 * Featured-app activity markers (featured-app-activity.ts): FeaturedAppRight's
 * `FeaturedAppRight_CreateActivityMarker` (splice-api-featured-app-v1) and the
 * FeaturedAppActivityMarker it creates, over the ledger API.
 */
import { describe, expect, it } from 'vitest';
import { createFeaturedAppRight } from '../../../../../src/emulator/templates/amulet/index.js';
import { amuletLedger, exercise } from './fixture.js';
import { createdOf } from '../wire.js';

const RIGHT_V1 = '#splice-api-featured-app-v1:Splice.Api.FeaturedAppRightV1:FeaturedAppRight';
const MARKER = '#splice-amulet:Splice.Amulet:FeaturedAppActivityMarker';

function world() {
  const l = amuletLedger();
  const right = createFeaturedAppRight(l.engine, { dso: l.dso, provider: l.provider });
  const mark = (actAs: string, beneficiaries: Array<{ beneficiary: string; weight: string }>) =>
    l.client.submit([actAs], [exercise(RIGHT_V1, right, 'FeaturedAppRight_CreateActivityMarker', { beneficiaries })]);
  return { l, right, mark };
}

describe('FeaturedAppRight_CreateActivityMarker (splice-api-featured-app-v1)', () => {
  it('the provider marks activity: one marker per beneficiary, weights of a repeated one added, in party order; the right stays', async () => {
    const { l, right, mark } = world();
    const r = await mark(l.provider, [
      { beneficiary: l.bob, weight: '0.25' },
      { beneficiary: l.alice, weight: '0.5' },
      { beneficiary: l.bob, weight: '0.25' },
    ]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const created = r.transaction.events.filter((e) => e.CreatedEvent !== undefined).map((e) => createdOf(e));
    for (const c of created) {
      expect(c.templateId).toMatch(/:Splice\.Amulet:FeaturedAppActivityMarker$/);
      expect(c.signatories).toEqual([l.dso]);
    }
    const payloads = created.map((c) => c.createArgument);
    const [first, second] = [l.alice, l.bob].sort();
    expect(payloads).toEqual([
      { dso: l.dso, provider: l.provider, beneficiary: first, weight: '0.5000000000' },
      { dso: l.dso, provider: l.provider, beneficiary: second, weight: '0.5000000000' },
    ]);
    const exercised = r.transaction.events[0]!.ExercisedEvent!;
    expect(exercised.consuming).toBe(false);
    expect(exercised.exerciseResult).toEqual({ activityMarkerCids: created.map((c) => c.contractId) });
    expect(l.engine.contracts.getActive(right)).toBeDefined();
    // The beneficiaries observe their markers.
    const seen = await l.client.post('/v2/state/active-contracts', {
      filter: { filtersByParty: { [l.bob]: { cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: MARKER, includeCreatedEventBlob: false } } } }] } } },
      verbose: false,
      activeAtOffset: await l.client.ledgerEnd(),
    });
    expect(JSON.stringify(seen.body)).toContain(created.find((c) => (c.createArgument as { beneficiary: string }).beneficiary === l.bob)!.contractId);
  });

  it('refuses bad weights and more than 20 beneficiaries, as validateAppRewardBeneficiaries does; nothing changes', async () => {
    const { l, mark } = world();
    const end = await l.client.ledgerEnd();
    const cases: Array<[Array<{ beneficiary: string; weight: string }>, string]> = [
      [[{ beneficiary: l.alice, weight: '0.9' }], 'Beneficiary weights add up to 1.0'],
      [[{ beneficiary: l.alice, weight: '0.0' }, { beneficiary: l.bob, weight: '1.0' }], 'Beneficiary weights are between 0.0 and 1.0'],
      [[{ beneficiary: l.alice, weight: '1.5' }, { beneficiary: l.bob, weight: '-0.5' }], 'Beneficiary weights are between 0.0 and 1.0'],
      [[...Array.from({ length: 20 }, () => ({ beneficiary: l.alice, weight: '0.04' })), { beneficiary: l.bob, weight: '0.2' }], 'There are at most 20 beneficiaries'],
    ];
    for (const [beneficiaries, message] of cases) {
      const r = await mark(l.provider, beneficiaries);
      expect(r.error.code).toBe('DAML_FAILURE');
      expect(r.error.cause).toContain(`The requirement '${message}' was not met.`);
    }
    expect(await l.client.ledgerEnd()).toBe(end);
  });

  it('only the provider may mark: the DSO (a signatory) lacks the controller\'s authority', async () => {
    const { l, mark } = world();
    const r = await mark(l.dso, [{ beneficiary: l.alice, weight: '1.0' }]);
    expect(r.error.code).toBe('DAML_AUTHORIZATION_ERROR');
  });
});
