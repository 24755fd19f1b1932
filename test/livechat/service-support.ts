import type { Deps } from '../../src/deps.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { putSettings } from '../../src/livechat/settings.service.js';
import { startConversation } from '../../src/livechat/conversations.service.js';
import type { PutSettingsBody, StartConversationBody } from '../../src/livechat/livechat.schemas.js';
import { PUT_DEFAULTS } from './support.js';

/** Service-layer twins of support.ts: activation and starting a chat, straight through the services. */
export function activateChatService(deps: Deps, workspace: Workspace, overrides: Partial<PutSettingsBody> = {}) {
  return putSettings(deps, workspace.id, { ...PUT_DEFAULTS, ...overrides });
}

/** Starts (or resumes) a chat of an activated workspace; fails the test when the plugin answers disabled. */
export async function startChatService(deps: Deps, workspace: Workspace, body: Partial<StartConversationBody> = {}) {
  const result = await startConversation(deps, workspace, { visitorSessionId: 'sess-1', ...body });
  if (!result.enabled) throw new Error('live chat is not enabled');
  return result;
}
