import type { Workspace } from './workspaces.model.js';

/** What the consumer's tracker needs; nothing but `enabled` until analytics is set up. */
export function analyticsConfig(workspace: Workspace) {
  if (!workspace.analytics) return { enabled: false };
  return { enabled: true, websiteId: workspace.analytics.websiteId, scriptUrl: workspace.analytics.scriptUrl };
}
