import type { WorkspaceSeeder } from '../workspaces/workspaces.service.js';
import { putSettings } from './settings.service.js';

/** The demo bakery takes appointments: weekdays with a lunch break, Saturday mornings, Berlin time. */
export const seedDemoAppointments: WorkspaceSeeder = async (deps, workspace) => {
  await putSettings(deps, workspace.id, {
    enabled: true,
    timezone: 'Europe/Berlin',
    slotDurationMinutes: 30,
    leadTimeHours: 2,
    bookingWindowDays: 30,
    policyText: 'Please cancel at least 24 hours ahead if you cannot make it.',
    businessHours: {
      mon: [['09:00', '12:00'], ['13:00', '17:00']],
      tue: [['09:00', '12:00'], ['13:00', '17:00']],
      wed: [['09:00', '12:00'], ['13:00', '17:00']],
      thu: [['09:00', '12:00'], ['13:00', '17:00']],
      fri: [['09:00', '12:00'], ['13:00', '17:00']],
      sat: [['10:00', '14:00']],
    },
    notificationEmail: null,
  });
};
