import { spawnSync } from 'node:child_process';
import { describe, expect, test } from '@jest/globals';
import { LOG_FLUSH_MS } from '../../src/app/shipped-logger.js';

/** Runs `body` in a fresh process with the shipped logger as `logger`; its stdout, as the operator's log collector reads it. */
function stdoutOf(body: string): string {
  const script = `import { shippedLogger } from './src/app/shipped-logger.ts';\nconst logger = shippedLogger('info');\n${body}`;
  const result = spawnSync('npx', ['tsx', '--eval', script], { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`child failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

describe('the shipped logger (buffered lines on stdout)', () => {
  test('a lone line reaches stdout within the flush period, while the process runs on', () => {
    // The marker is written straight to stdout well after the flush period: a line still waiting in the buffer
    // for 4 KiB of company would only come out at exit, after it.
    const out = stdoutOf(`logger.info('lone line');\nsetTimeout(() => { process.stdout.write('marker\\n'); process.exit(0); }, ${LOG_FLUSH_MS * 4});`);
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 30, msg: 'lone line' });
    expect(lines[1]).toBe('marker');
  }, 60_000);

  test('lines still buffered when the process exits are written, in order', () => {
    const out = stdoutOf(`for (let i = 0; i < 3; i++) logger.info({ i }, 'before exit');\nprocess.exit(0);`);
    expect(out.trim().split('\n').map((line) => (JSON.parse(line) as { i: number }).i)).toEqual([0, 1, 2]);
  }, 60_000);
});
