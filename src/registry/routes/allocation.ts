/**
 * allocation-v1.yaml (note the plural `allocations`: execute-transfer, withdraw, cancel) and
 * allocation-v2.yaml (singular `allocation/v2/settlement-factory` as the spec has it, plus
 * withdraw and cancel contexts; no execute-transfer in v2).
 */
import type { AllocationAction, ApiVersion } from '../api.js';
import { FactoryWithChoiceContextSchema } from '../schemas.js';
import { contextRoute, factoryRoute, type RegistryApp } from './common.js';

function registerContexts(app: RegistryApp, version: ApiVersion, actions: Array<{ action: AllocationAction; operationId: string }>, errors: number[]): void {
  for (const { action, operationId } of actions) {
    app.openapi(
      contextRoute({
        path: `/registry/allocations/v${version}/{allocationId}/choice-contexts/${action}`,
        param: 'allocationId',
        operationId,
        description: `Get the choice context to ${action} an allocation (v${version}).`,
        errors,
      }),
      async (c) => c.json(await c.var.registry.getAllocationContext(version, c.req.valid('param').allocationId as string, action, c.req.valid('json')), 200),
    );
  }
}

export function registerAllocationV1(app: RegistryApp): void {
  registerContexts(
    app,
    1,
    [
      { action: 'execute-transfer', operationId: 'getAllocationTransferContext' },
      { action: 'withdraw', operationId: 'getAllocationWithdrawContext' },
      { action: 'cancel', operationId: 'getAllocationCancelContext' },
    ],
    [400, 404, 409, 503],
  );
}

export function registerAllocationV2(app: RegistryApp): void {
  const errors = [400, 404, 409, 503];
  app.openapi(
    factoryRoute({
      path: '/registry/allocation/v2/settlement-factory',
      operationId: 'getSettlementFactory',
      description: 'Get the factory and choice context for settling a batch of allocations (SettlementFactory_SettleBatch).',
      response: FactoryWithChoiceContextSchema,
      errors,
    }),
    async (c) => c.json(await c.var.registry.getSettlementFactory(c.req.valid('json')), 200),
  );
  registerContexts(
    app,
    2,
    [
      { action: 'withdraw', operationId: 'getAllocationWithdrawContextV2' },
      { action: 'cancel', operationId: 'getAllocationCancelContextV2' },
    ],
    errors,
  );
}
