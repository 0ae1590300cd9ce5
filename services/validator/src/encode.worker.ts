import { parentPort, workerData } from 'node:worker_threads';
import { RawBatchProcessor, unpackValues } from './raw-batch-processor';
import type { EncodeReply, EncodeRequest } from './encode-pool';
import type { NormalizeOptions } from '@evp/schemas';
import type { PrivacyTable } from '@evp/core';
import type { OutputSchema } from './output-schemas';

/** Entry of an encode pool worker: raw messages in, encoded outcomes out, one request at a time. */
const { schemas, normalize } = workerData as { schemas: OutputSchema[]; normalize: NormalizeOptions };
const encoder = new RawBatchProcessor(schemas, normalize);
const port = parentPort;
/** The policy of the last request that carried one (every first request after a start does). */
let privacy: PrivacyTable | undefined;
if (port === null) throw new Error('encode.worker runs only as a worker thread');

port.on('message', (req: EncodeRequest) => {
  let reply: EncodeReply;
  try {
    if (req.privacy !== undefined) privacy = req.privacy;
    if (privacy === undefined) throw new Error('encode worker: a request before any privacy policy');
    const batch = encoder.encode(unpackValues(req), privacy);
    reply = { seq: req.seq, batch };
    port.postMessage(reply, [batch.bytes, batch.events.rows]);
  } catch (err) {
    reply = { seq: req.seq, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    port.postMessage(reply);
  }
});
