import { expect, test } from '@jest/globals';
import { toAppError } from '../../src/http/errors.js';

// FerretDB on SQLite answers an engine that is up but cannot take the write now with SQLITE_BUSY: the client
// is told to retry (503 with Retry-After), never a 500 that reads as a fault.
test('an engine busy error (SQLITE_BUSY, database is locked) is 503 engine_busy with Retry-After', () => {
  for (const message of ['database is locked (5) (SQLITE_BUSY)', 'sqlite: step: SQLITE_BUSY']) {
    const mapped = toAppError(Object.assign(new Error(message), { name: 'MongoServerError', code: 1 }), 100);
    expect([mapped?.status, mapped?.code, mapped?.retryAfterSeconds]).toEqual([503, 'engine_busy', 1]);
  }
  // Any other engine error stays an internal error (null: a 500 with nothing internal said).
  expect(toAppError(Object.assign(new Error('some other failure'), { name: 'MongoServerError', code: 1 }), 100)).toBeNull();
});
