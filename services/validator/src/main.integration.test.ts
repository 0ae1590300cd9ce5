import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The validator reads the keys file (privacy policy, pseudonym keys): one with a single key. */
function keysFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'validator-main-')), 'keys.json');
  writeFileSync(path, JSON.stringify({ keys: [{ id: 'v-sdk', app_id: 'app-v', role: 'sdk', key: 'sdk_validator_main_test' }] }));
  return path;
}

/**
 * The composition root's answer to a consumer that stops for good: it says why and exits 1, so an
 * orchestrator restarts it instead of leaving a process up that consumes nothing. The broker refuses
 * a 1 s session timeout (group.min.session.timeout.ms is 6 s) at join, which no retry cures.
 */
describe('validator process with a consumer the broker refuses', () => {
  it('logs that the ingest.raw consumer stopped for good and exits 1', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'main.ts')], {
      env: {
        ...process.env,
        KAFKA_SESSION_TIMEOUT_MS: '1000',
        METRICS_PORT: '0',
        VALIDATOR_WORKERS: '0',
        LOG_LEVEL: 'info',
        KEYS_FILE: keysFile(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
    const startedAt = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      const deadline = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 60_000);
      child.once('exit', (c) => {
        clearTimeout(deadline);
        resolve(c);
      });
    });
    const fatal = output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level === 60);
    expect(code).toBe(1);
    expect(fatal.map((l) => l.msg)).toEqual(['the ingest.raw consumer stopped for good: not ready, exiting to be restarted']);
    expect(Date.now() - startedAt).toBeLessThan(30_000);
  }, 90_000);
});
