import type { WorkspaceSeeder } from '../workspaces/workspaces.service.js';
import { createCategory } from './categories.service.js';

/** Demo categories, used by the demo posts (`seedDemoPosts`). */
export const seedDemoCategories: WorkspaceSeeder = async (deps, workspace) => {
  await createCategory(deps, workspace, { slug: 'bread', name: 'Bread' });
  await createCategory(deps, workspace, { slug: 'pastry', name: 'Pastry' });
};
