import { KeyRing, createLogger } from '@evp/core';
import type { AccessLog } from '@evp/http';
import { startPipeline, type PipelineParts, type RunningPipeline } from '../pipeline';

/** The keys of a privacy test: `app`'s SDK and API keys, and another app's API key (which must see nothing). */
export const privacyKeys = (tag: string) => ({
  app: `${tag}-app`,
  sdk: `sdk_${tag}_0123456789abcdef01`,
  api: `api_${tag}_0123456789abcdef01`,
  otherApi: `api_${tag}_other_0123456789ab`,
  apiKeyId: `${tag}-api`,
});

/** `npm start`'s composition with the privacy processor every 100 ms and the sink flushing every 50 ms. */
export function startPrivacyPipeline(parts: PipelineParts, tag: string, hashKey: string, accessLog?: AccessLog): Promise<RunningPipeline> {
  const k = privacyKeys(tag);
  return startPipeline({
    parts,
    keys: new KeyRing({
      keys: [
        { id: `${tag}-sdk`, app_id: k.app, role: 'sdk', key: k.sdk },
        { id: k.apiKeyId, app_id: k.app, role: 'api', key: k.api },
        { id: `${tag}-other-api`, app_id: `${tag}-other`, role: 'api', key: k.otherApi },
      ],
    }),
    logger: createLogger(tag, 'silent'),
    sinkFlushMs: 50,
    privacyHashKey: hashKey,
    privacyIntervalMs: 100,
    ...(accessLog ? { accessLog } : {}),
  });
}

/** An upload (POST /v1/ingest/log) of `n` patient events of `user`, patients p-0, p-1, …. */
export const patientUpload = (user: string, n: number) => ({
  id: user,
  tz: '+00:00',
  internal: { s_id: `${user}_1700000000000_0`, sdk: 'android/2.4.1', a_id: 'a', a_ver: '1.2.3 (45)', d_id: 'd-1', os: 'android' },
  data: Array.from({ length: n }, (_, i) => ({
    time: `2026-11-28 10:00:0${i}.000`,
    name: 'patient',
    property: 'add',
    ctx: { __ol: true, patient_id: `p-${i}`, site_id: 's-1', action: 'add', category: 'facility', type: 'outpatient' },
  })),
});
