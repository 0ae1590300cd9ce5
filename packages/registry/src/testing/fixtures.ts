import { InfraError } from '@evp/core';

/** The adapter tests' small record. */
export const user = {
  type: 'record',
  name: 'User',
  namespace: 'evp.test',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'age', type: 'int' },
  ],
};

/** The InfraError a promise rejects with (fails the test when it resolves or throws anything else). */
export async function rejection(promise: Promise<unknown>): Promise<InfraError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InfraError);
  return err as InfraError;
}
