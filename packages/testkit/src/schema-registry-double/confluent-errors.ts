import type { SchemaStoreErrorCode } from '@evp/registry';

/** The body every Confluent error carries; clients read `message`, operators read `error_code`. */
export interface ConfluentErrorBody {
  error_code: number;
  message: string;
}

export class ConfluentHttpError extends Error {
  readonly status: number;
  readonly errorCode: number;
  constructor(status: number, errorCode: number, message: string) {
    super(message);
    this.name = 'ConfluentHttpError';
    this.status = status;
    this.errorCode = errorCode;
  }
  body(): ConfluentErrorBody {
    return { error_code: this.errorCode, message: this.message };
  }
}

/** Status and error_code exactly as Confluent's io.confluent.kafka.schemaregistry.rest.exceptions.Errors. */
export const storeErrorStatus: Record<SchemaStoreErrorCode, { status: number; errorCode: number }> = {
  subject_not_found: { status: 404, errorCode: 40401 },
  version_not_found: { status: 404, errorCode: 40402 },
  schema_not_found: { status: 404, errorCode: 40403 },
  subject_soft_deleted: { status: 404, errorCode: 40404 },
  subject_not_soft_deleted: { status: 404, errorCode: 40405 },
  subject_compatibility_not_configured: { status: 404, errorCode: 40408 },
  incompatible: { status: 409, errorCode: 409 },
  invalid_schema: { status: 422, errorCode: 42201 },
  invalid_version: { status: 422, errorCode: 42202 },
  invalid_compatibility_level: { status: 422, errorCode: 42203 },
};

export const routeNotFound = () => new ConfluentHttpError(404, 404, 'HTTP 404 Not Found');
