/**
 * allocation-instruction-v1.yaml (allocation factory only) and allocation-instruction-v2.yaml
 * (allocation factory, and accept/withdraw contexts of an allocation instruction).
 */
import type { AllocationInstructionAction, ApiVersion } from '../api.js';
import { FactoryWithChoiceContextSchema } from '../schemas.js';
import { contextRoute, factoryRoute, type RegistryApp } from './common.js';

function registerFactory(app: RegistryApp, version: ApiVersion, errors: number[]): void {
  app.openapi(
    factoryRoute({
      path: `/registry/allocation-instruction/v${version}/allocation-factory`,
      operationId: `getAllocationFactory${version === 2 ? 'V2' : ''}`,
      description: `Get the factory and choice context for creating allocations (AllocationFactory_Allocate, v${version}).`,
      response: FactoryWithChoiceContextSchema,
      errors,
    }),
    async (c) => c.json(await c.var.registry.getAllocationFactory(version, c.req.valid('json')), 200),
  );
}

export function registerAllocationInstructionV1(app: RegistryApp): void {
  registerFactory(app, 1, [400, 404, 409, 503]);
}

const V2_ACTIONS: Array<{ action: AllocationInstructionAction; operationId: string }> = [
  { action: 'accept', operationId: 'getAllocationInstructionAcceptContextV2' },
  { action: 'withdraw', operationId: 'getAllocationInstructionWithdrawContextV2' },
];

export function registerAllocationInstructionV2(app: RegistryApp): void {
  const errors = [400, 404, 409, 503];
  registerFactory(app, 2, errors);
  for (const { action, operationId } of V2_ACTIONS) {
    app.openapi(
      contextRoute({
        path: `/registry/allocation-instruction/v2/{allocationInstructionId}/choice-contexts/${action}`,
        param: 'allocationInstructionId',
        operationId,
        description: `Get the choice context to ${action} an allocation instruction (v2).`,
        errors,
      }),
      async (c) =>
        c.json(await c.var.registry.getAllocationInstructionContext(c.req.valid('param').allocationInstructionId as string, action, c.req.valid('json')), 200),
    );
  }
}
