import type { DemoSeeder } from './seed.js';
import { seedDemoCategories } from '../categories/categories.seed.js';
import { seedDemoPosts } from '../posts/posts.seed.js';
import { seedDemoNavigations } from '../navigations/navigations.seed.js';
import { seedDemoLiveChat } from '../livechat/livechat.seed.js';
import { seedDemoAppointments } from '../appointments/appointments.seed.js';

/** Each domain's demo content, in order. */
export const demoSeeders: DemoSeeder[] = [seedDemoCategories, seedDemoPosts, seedDemoNavigations, seedDemoLiveChat, seedDemoAppointments];
