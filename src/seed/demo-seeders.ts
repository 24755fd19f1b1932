import type { DemoSeeder } from './seed.js';

/** Each domain's demo content, in order. */
export const demoSeeders: DemoSeeder[] = [];
