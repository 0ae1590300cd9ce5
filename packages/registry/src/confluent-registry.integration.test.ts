import { describeSchemaRegistryConformance } from '@evp/testkit';
import { createConfluentRegistry } from './confluent-registry';
import { rejection, user } from './testing/fixtures';
import { type RecordingProxy, startRecordingProxy } from './testing/recording-proxy';

// The integration project's globalSetup brings the local stack up and sets SCHEMA_REGISTRY_URL:
// Apicurio Registry's Confluent API there (CI too); point it at a Confluent registry to check that
// one. Everything below holds for both.
const registryUrl = (): string => {
  const url = process.env.SCHEMA_REGISTRY_URL;
  if (!url) throw new Error('SCHEMA_REGISTRY_URL is not set: run through the integration project (jest --selectProjects integration)');
  return url;
};

describeSchemaRegistryConformance('Confluent adapter against SCHEMA_REGISTRY_URL', async () => ({
  registry: createConfluentRegistry({ url: registryUrl() }),
  close: async () => {},
}));

/** `user` as another program could spell it: other key order, `{"type":"int"}` for "int". */
const userSpelledOtherwise = {
  fields: [
    { type: 'string', name: 'id' },
    { type: { type: 'int' }, name: 'age' },
  ],
  namespace: 'evp.test',
  type: 'record',
  name: 'User',
};
const userAgeAsString = { ...user, fields: [user.fields[0], { name: 'age', type: 'string' }] };
const userWithCountry = { ...user, fields: [...user.fields, { name: 'country', type: 'string', default: 'unknown' }] };

describe('createConfluentRegistry against SCHEMA_REGISTRY_URL', () => {
  const runId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  let n = 0;
  /** A subject no earlier run used: the registry lives as long as the stack. */
  const freshSubject = () => `adapter-${runId}-${++n}-value`;
  let proxy: RecordingProxy;

  beforeEach(async () => {
    proxy = await startRecordingProxy(registryUrl());
  });
  afterEach(async () => {
    await proxy.close();
  });

  it('asks the registry once per (subject, schema), however often and concurrently it is called', async () => {
    const [subject, other] = [freshSubject(), freshSubject()];
    const registry = createConfluentRegistry({ url: proxy.url });
    const ids = await Promise.all([1, 2, 3].map(() => registry.register(subject, user)));
    ids.push(await registry.register(subject, user), await registry.register(subject, userSpelledOtherwise));
    expect(new Set(ids).size).toBe(1);
    expect(proxy.requests.filter((r) => r === `POST /subjects/${subject}/versions`)).toHaveLength(1);

    await registry.register(other, user);
    expect(proxy.requests.filter((r) => /^POST \/subjects\/[^/]+\/versions$/.test(r))).toEqual([
      `POST /subjects/${subject}/versions`,
      `POST /subjects/${other}/versions`,
    ]);
  });

  it('fetches a schema once per id for encode and decode', async () => {
    const producer = createConfluentRegistry({ url: proxy.url });
    const consumer = createConfluentRegistry({ url: proxy.url });
    const id = await producer.register(freshSubject(), user);
    for (let i = 0; i < 3; i++) expect(await consumer.decode(await consumer.encode(id, { id: `u${i}`, age: i }))).toEqual({ id: `u${i}`, age: i });
    expect(proxy.requests.filter((r) => r === `GET /schemas/ids/${id}`)).toHaveLength(1);
  });

  it('gives another client that spells the schema otherwise the same id and no new version', async () => {
    // Confluent's registry compares parsed schemas, Apicurio's compares the text it is sent: the
    // adapter sends the canonical text, so separate processes agree on ids with both.
    const subject = freshSubject();
    const id = await createConfluentRegistry({ url: registryUrl() }).register(subject, user);
    expect(await createConfluentRegistry({ url: registryUrl() }).register(subject, userSpelledOtherwise)).toBe(id);
    const versions = await fetch(`${registryUrl()}/subjects/${subject}/versions`);
    expect(await versions.json()).toEqual([1]);
  });

  it('maps a 5xx to a retriable error and does not remember the failure', async () => {
    const subject = freshSubject();
    proxy.failNext(1, new RegExp(`^POST /subjects/${subject}/versions$`));
    const registry = createConfluentRegistry({ url: proxy.url });
    const err = await rejection(registry.register(subject, user));
    expect(err.retriable).toBe(true);
    expect(err.message).toBe(
      `schema-registry: register schema under subject "${subject}" failed: registry answered 503: Error while forwarding the request to the leader`,
    );
    expect(await registry.register(subject, user)).toBeGreaterThan(0);
    expect(proxy.requests.filter((r) => r === `POST /subjects/${subject}/versions`)).toHaveLength(2);
  });

  it('maps an incompatible schema to a non-retriable 409 carrying the registry message', async () => {
    const subject = freshSubject();
    const registry = createConfluentRegistry({ url: registryUrl() });
    await registry.register(subject, user);
    const err = await rejection(registry.register(subject, userAgeAsString));
    expect(err.retriable).toBe(false);
    // The text after the status is the registry's own: Confluent says "Schema being registered is
    // incompatible with an earlier schema …", Apicurio "… Incompatible artifact: <subject> …".
    expect(err.message.startsWith(`schema-registry: register schema under subject "${subject}" failed: registry answered 409: `)).toBe(true);
    expect(err.message).toMatch(/incompatible/i);
  });

  it('a subject created without a level of its own: the global BACKWARD applies, the adapter registers once the subject has a level', async () => {
    // Created by someone else, straight over HTTP: no level of its own, so the global one applies
    // (Confluent's default is BACKWARD, Apicurio's NONE: deploy/local/stack.sh sets BACKWARD).
    const subject = freshSubject();
    const post = (schema: object) =>
      fetch(`${registryUrl()}/subjects/${subject}/versions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' },
        body: JSON.stringify({ schema: JSON.stringify(schema) }),
      });
    expect((await post(user)).status).toBe(200);
    expect((await post(userAgeAsString)).status).toBe(409);

    // Asked for the subject's own level, Confluent answers 404 (40408), which the client takes for
    // a new subject (it registers, then sets the level); Apicurio answers NONE, which the client
    // takes for a level set otherwise, and refuses, loudly, until someone sets the subject's level.
    const registry = createConfluentRegistry({ url: registryUrl() });
    const own = await fetch(`${registryUrl()}/config/${subject}`);
    if (own.status === 200) {
      expect(await own.json()).toEqual({ compatibilityLevel: 'NONE' });
      const err = await rejection(registry.register(subject, userWithCountry));
      expect(err.retriable).toBe(false);
      expect(err.message).toBe(
        `schema-registry: register schema under subject "${subject}" failed: Compatibility does not match the configuration (BACKWARD != NONE)`,
      );
      const set = await fetch(`${registryUrl()}/config/${subject}`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json' },
        body: JSON.stringify({ compatibility: 'BACKWARD' }),
      });
      expect(set.status).toBe(200);
    } else {
      expect(own.status).toBe(404);
    }
    const evolved = await registry.register(subject, userWithCountry);
    expect(await registry.decode(await registry.encode(evolved, { id: 'u1', age: 3, country: 'FR' }))).toEqual({ id: 'u1', age: 3, country: 'FR' });
    expect(await (await fetch(`${registryUrl()}/config/${subject}`)).json()).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect(await (await fetch(`${registryUrl()}/subjects/${subject}/versions`)).json()).toEqual([1, 2]);
  });

  it('refuses to register into a subject whose level differs from the one it was given', async () => {
    const subject = freshSubject();
    const id = await createConfluentRegistry({ url: registryUrl(), compatibility: 'FULL' }).register(subject, user);
    const err = await rejection(createConfluentRegistry({ url: registryUrl() }).register(subject, user));
    expect(err.retriable).toBe(false);
    expect(err.message).toBe(
      `schema-registry: register schema under subject "${subject}" failed: Compatibility does not match the configuration (BACKWARD != FULL)`,
    );
    expect(await createConfluentRegistry({ url: registryUrl(), compatibility: 'FULL' }).register(subject, user)).toBe(id);
  });

  it('maps an unknown id to a non-retriable 404 naming the registry answer', async () => {
    const unknownId = 2_147_483_000 + Math.floor(Math.random() * 600);
    const err = await rejection(createConfluentRegistry({ url: registryUrl() }).encode(unknownId, { id: 'x', age: 1 }));
    expect(err.retriable).toBe(false);
    // Confluent: "Schema <id> not found"; Apicurio: "No content with id/hash 'contentId-<id>' was found."
    expect(err.message).toMatch(new RegExp(`^schema-registry: encode with schema ${unknownId} failed: registry answered 404: .*${unknownId}`));
  });
});
