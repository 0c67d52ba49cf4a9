/**
 * `EmulatedStackContainer.withProfile('localnet')`: the container listens on LocalNet's ports and
 * publishes them on the host under the same numbers, so a client configured for LocalNet reaches
 * it unchanged; without a profile, the CLI's default ports on free host ports, as before.
 */
import { describe, expect, it } from 'vitest';
import { EMULATED_STACK_PORTS, EmulatedStackContainer, emulatedStackLayout } from '../../../src/testcontainers/index.js';

describe('the emulated stack container layout', () => {
  it('without a profile: the CLI defaults, every one on a free host port', () => {
    expect(emulatedStackLayout()).toEqual({ ports: { ...EMULATED_STACK_PORTS }, fixedOnHost: [] });
  });

  it("localnet: LocalNet's ledgers, validator, scan and example test-token registry, published under their own numbers; no demo registry", () => {
    expect(emulatedStackLayout('localnet')).toEqual({
      profile: 'localnet',
      ports: { ledger: 2975, participant2: 3975, exampleRegistry: 5634, scan: 4000, validator: 2000, admin: 7580 },
      fixedOnHost: [2975, 3975, 2000, 4000, 5634],
    });
  });

  it('withProfile is chainable like the other with* methods', () => {
    const c = new EmulatedStackContainer('token-registry:test');
    expect(c.withProfile('localnet')).toBe(c);
  });
});
