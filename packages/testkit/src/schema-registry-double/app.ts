import { type CompatibilityLevel, type SchemaStore, SchemaStoreError, type VersionSpec, createSchemaStore } from '@evp/registry';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { ConfluentHttpError, routeNotFound, storeErrorStatus } from './confluent-errors';

/** What Confluent answers with (and the client sends); plain JSON is accepted too, as by Confluent. */
export const SCHEMA_REGISTRY_CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
const ACCEPTED_REQUEST_TYPES = [SCHEMA_REGISTRY_CONTENT_TYPE, 'application/vnd.schemaregistry+json', 'application/json', 'application/octet-stream'];

export interface SchemaRegistryDoubleOptions {
  /** Pass one to inspect or pre-seed state from a test; a fresh in-memory store otherwise. */
  store?: SchemaStore;
  /** Initial global compatibility level (BACKWARD, as in Confluent, by default). */
  compatibility?: CompatibilityLevel;
}

/**
 * TEST DOUBLE of the Confluent Schema Registry REST API (the subset in README.md), for tests and
 * the local stack only: state lives in memory and dies with the process. Registry semantics come
 * from @evp/registry's SchemaStore, the same ones the in-process registry uses.
 */
export function createSchemaRegistryDouble(opts: SchemaRegistryDoubleOptions = {}): Express {
  const store = opts.store ?? createSchemaStore(opts.compatibility !== undefined ? { compatibility: opts.compatibility } : {});
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ type: ACCEPTED_REQUEST_TYPES, limit: '16mb' }));

  app.get('/', (_req, res) => send(res, {}));

  app.get('/schemas/types', (_req, res) => send(res, ['AVRO']));

  app.get('/schemas/ids/:id', (req, res) => {
    send(res, { schema: store.schemaById(schemaId(req)).schema });
  });

  app.get('/schemas/ids/:id/versions', (req, res) => {
    send(res, store.subjectVersionsOfId(schemaId(req), { deleted: flag(req, 'deleted') }));
  });

  app.get('/subjects', (req, res) => send(res, store.subjects({ deleted: flag(req, 'deleted') })));

  app.get('/subjects/:subject/versions', (req, res) => {
    send(res, store.versions(subject(req), { deleted: flag(req, 'deleted') }));
  });

  app.post('/subjects/:subject/versions', (req, res) => {
    send(res, { id: store.register(subject(req), avroSchemaText(req)).id });
  });

  app.get('/subjects/:subject/versions/:version', (req, res) => {
    send(res, store.version(subject(req), version(req), { deleted: flag(req, 'deleted') }));
  });

  app.get('/subjects/:subject/versions/:version/schema', (req, res) => {
    // Confluent returns the bare schema here, not wrapped in an object.
    sendRaw(res, 200, store.version(subject(req), version(req), { deleted: flag(req, 'deleted') }).schema);
  });

  app.post('/subjects/:subject', (req, res) => {
    send(res, store.lookup(subject(req), avroSchemaText(req), { deleted: flag(req, 'deleted') }));
  });

  app.delete('/subjects/:subject', (req, res) => {
    send(res, store.deleteSubject(subject(req), { permanent: flag(req, 'permanent') }));
  });

  app.post('/compatibility/subjects/:subject/versions', (req, res) => {
    send(res, compatibilityAnswer(req, store.compatibilityProblems(subject(req), undefined, avroSchemaText(req))));
  });

  app.post('/compatibility/subjects/:subject/versions/:version', (req, res) => {
    send(res, compatibilityAnswer(req, store.compatibilityProblems(subject(req), version(req), avroSchemaText(req))));
  });

  app.get('/config', (_req, res) => send(res, { compatibilityLevel: store.globalCompatibility() }));

  app.put('/config', (req, res) => {
    send(res, { compatibility: store.setGlobalCompatibility(bodyField(req, 'compatibility')) });
  });

  app.get('/config/:subject', (req, res) => {
    const own = store.subjectCompatibility(subject(req));
    if (own !== undefined) return send(res, { compatibilityLevel: own });
    if (flag(req, 'defaultToGlobal')) return send(res, { compatibilityLevel: store.globalCompatibility() });
    // Since Confluent 7 a subject without its own level answers 40408; the client relies on
    // this 404 to detect a first registration and then sets the level it wants.
    throw new ConfluentHttpError(
      404,
      storeErrorStatus.subject_compatibility_not_configured.errorCode,
      `Subject '${subject(req)}' does not have subject-level compatibility configured`,
    );
  });

  app.put('/config/:subject', (req, res) => {
    send(res, { compatibility: store.setSubjectCompatibility(subject(req), bodyField(req, 'compatibility')) });
  });

  app.use(() => {
    throw routeNotFound();
  });

  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const http = toHttpError(err);
    sendRaw(res, http.status, JSON.stringify(http.body()));
  });

  return app;
}

function send(res: Response, body: unknown): void {
  sendRaw(res, 200, JSON.stringify(body));
}

function sendRaw(res: Response, status: number, text: string): void {
  // res.json() would add "; charset=utf-8"; Confluent sends the bare media type.
  res.status(status).setHeader('Content-Type', SCHEMA_REGISTRY_CONTENT_TYPE);
  res.end(text);
}

function subject(req: Request): string {
  return String(req.params.subject);
}

function version(req: Request): VersionSpec {
  return String(req.params.version);
}

function schemaId(req: Request): number {
  const raw = String(req.params.id);
  // Confluent's id is an int path parameter: anything else is not a route at all.
  if (!/^-?\d+$/.test(raw)) throw routeNotFound();
  return Number(raw);
}

function flag(req: Request, name: string): boolean {
  const value = req.query[name];
  return typeof value === 'string' && value.toLowerCase() === 'true';
}

function bodyField(req: Request, name: string): unknown {
  const body: unknown = req.body;
  return body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
}

function avroSchemaText(req: Request): string {
  const schema = bodyField(req, 'schema');
  const schemaType = bodyField(req, 'schemaType');
  const references = bodyField(req, 'references');
  if (typeof schema !== 'string' || schema.trim() === '') throw invalidSchema('Empty schema');
  if (schemaType !== undefined && schemaType !== null && schemaType !== 'AVRO') {
    throw invalidSchema(
      `Invalid schema: schemaType ${typeof schemaType === 'string' ? schemaType : JSON.stringify(schemaType)} is not supported by this test double (AVRO only)`,
    );
  }
  if (Array.isArray(references) && references.length > 0) {
    throw invalidSchema('Invalid schema: schema references are not supported by this test double');
  }
  return schema;
}

function invalidSchema(message: string): ConfluentHttpError {
  const { status, errorCode } = storeErrorStatus.invalid_schema;
  return new ConfluentHttpError(status, errorCode, message);
}

function compatibilityAnswer(req: Request, problems: string[]): object {
  const answer = { is_compatible: problems.length === 0 };
  return flag(req, 'verbose') ? { ...answer, messages: problems } : answer;
}

function toHttpError(err: unknown): ConfluentHttpError {
  if (err instanceof ConfluentHttpError) return err;
  if (err instanceof SchemaStoreError) {
    const { status, errorCode } = storeErrorStatus[err.code];
    return new ConfluentHttpError(status, errorCode, err.message);
  }
  // body-parser failures (malformed JSON, too large) carry their own 4xx status.
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ConfluentHttpError(status, status, (err as Error).message);
  }
  return new ConfluentHttpError(500, 50001, `Error in the test double: ${(err as Error)?.message ?? String(err)}`);
}
