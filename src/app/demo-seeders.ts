import type { DemoSeeder } from './seed.js';
import { seedDemoContent } from '../content/content.seed.js';
import { seedDemoLiveChat } from '../livechat/livechat.seed.js';
import { seedDemoAppointments } from '../appointments/appointments.seed.js';

/** Each domain's demo content, in order. */
export const demoSeeders: DemoSeeder[] = [seedDemoContent, seedDemoLiveChat, seedDemoAppointments];
