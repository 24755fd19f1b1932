import type { Deps } from '../deps.js';
import { type Workspace, type WorkspaceSeeder, findWorkspaceBySlug } from '../workspaces/workspaces.service.js';
import { findUserByEmail } from '../auth/auth.service.js';
import { createWorkspace } from '../workspaces/workspaces.service.js';
import { ensureKey, revealKey } from '../credentials/credentials.service.js';

export const DEMO_SLUG = 'demo';

export interface DemoSeed {
  workspace: Workspace;
  apiKey: string;
  publishableKey: string | null;
  created: boolean;
}

/**
 * Seeds the demo workspace on first start; running it again finds the workspace and changes nothing.
 * Each domain adds its demo content through `demoSeeders`.
 */
export type DemoSeeder = WorkspaceSeeder;

export async function seedDemo(deps: Deps, ownerEmail: string, seeders: DemoSeeder[]): Promise<DemoSeed> {
  const existing = await findWorkspaceBySlug(deps, DEMO_SLUG);
  let workspace = existing;
  if (!workspace) {
    const owner = await findUserByEmail(deps, ownerEmail);
    if (!owner) throw new Error(`seed: no user ${ownerEmail} to own the demo workspace`);
    ({ workspace } = await createWorkspace(deps, owner, {
      slug: DEMO_SLUG,
      name: 'Hearth Demo Bakery',
      locales: ['en', 'de'],
      defaultLocale: 'en',
    }));
    for (const seeder of seeders) await seeder(deps, workspace);
  }
  return {
    workspace,
    apiKey: await ensureKey(deps, workspace.id, 'workspace'),
    publishableKey: await revealKey(deps, workspace.id, 'publishable'),
    created: !existing,
  };
}
