import { InfraError } from '@evp/core';

/** Every adapter reports under one dependency name so logs and alerts group registry failures together. */
export const REGISTRY_DEPENDENCY = 'schema-registry';

export function registryError(message: string, opts: { retriable: boolean; cause?: unknown }): InfraError {
  return new InfraError(REGISTRY_DEPENDENCY, message, opts);
}
