import { describeSchemaRegistryConformance } from '@evp/testkit';
import { createConfluentRegistry } from './confluent-registry';

// The integration project's globalSetup brings the local stack up and sets SCHEMA_REGISTRY_URL
// (the REST test double there; point it at a real Confluent registry to check the real thing).
describeSchemaRegistryConformance('Confluent adapter against SCHEMA_REGISTRY_URL', async () => {
  const url = process.env.SCHEMA_REGISTRY_URL;
  if (!url) throw new Error('SCHEMA_REGISTRY_URL is not set: run through the integration project (jest --selectProjects integration)');
  return { registry: createConfluentRegistry({ url }), close: async () => {} };
});
