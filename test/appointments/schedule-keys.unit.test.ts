import { expect, test } from '@jest/globals';
import { scheduleKeys, scheduleKeysOverlapping } from '../../src/appointments/schedule-keys.js';

test('an appointment is filed under the UTC date and month of its start, whatever its zone', () => {
  expect(scheduleKeys(new Date('2025-06-04T23:30:00-05:00'))).toEqual({ scheduledDay: '2025-06-05', scheduledMonth: '2025-06' });
  expect(scheduleKeys(new Date('2025-12-31T23:59:59.999Z'))).toEqual({ scheduledDay: '2025-12-31', scheduledMonth: '2025-12' });
});

test('a short range reads its days, and the day before when an appointment from it can still be running', () => {
  expect(scheduleKeysOverlapping(new Date('2025-06-04T00:30:00Z'), new Date('2025-06-04T10:00:00Z'))).toEqual([{ scheduledDay: '2025-06-03' }, { scheduledDay: '2025-06-04' }]);
  expect(scheduleKeysOverlapping(new Date('2025-06-04T01:00:00Z'), new Date('2025-06-05T00:00:00Z'))).toEqual([{ scheduledDay: '2025-06-04' }]);
  expect(scheduleKeysOverlapping(new Date('2025-06-04T01:00:00Z'), new Date('2025-06-04T01:00:00Z'))).toEqual([]);
});

test('a long range reads the months it covers for 8 days or more with one query each, the rest day by day', () => {
  const keys = scheduleKeysOverlapping(new Date('2025-06-26T12:00:00Z'), new Date('2025-08-03T12:00:00Z'));
  expect(keys).toEqual([
    { scheduledDay: '2025-06-26' },
    { scheduledDay: '2025-06-27' },
    { scheduledDay: '2025-06-28' },
    { scheduledDay: '2025-06-29' },
    { scheduledDay: '2025-06-30' },
    { scheduledMonth: '2025-07' },
    { scheduledDay: '2025-08-01' },
    { scheduledDay: '2025-08-02' },
    { scheduledDay: '2025-08-03' },
  ]);
  expect(scheduleKeysOverlapping(new Date('2025-06-20T00:00:00Z'), new Date('2025-07-01T00:00:00Z'))).toEqual([{ scheduledMonth: '2025-06' }]);
});
