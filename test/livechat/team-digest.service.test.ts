import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { eventually } from '../support/harness.js';
import { emailStore } from '../../src/email/email.model.js';
import { postVisitorMessage } from '../../src/livechat/messages.service.js';
import { sendTeamDigest } from '../../src/livechat/team-digest.service.js';
import { teamDigestStore } from '../../src/livechat/team-digest.model.js';
import { activateChatService, startChatService } from './service-support.js';

// The away digest when runs of its job meet (the queue's lock is a conditional update FerretDB lets two
// callers win), and its interval kept by the job itself whoever scheduled it.
let services: ServiceHarness;
beforeAll(async () => {
  services = await startServices();
});
afterAll(async () => {
  await services.close();
});

test('three runs of the digest job at once mail each member once; a run inside the interval waits for its end', async () => {
  const { deps } = services;
  const { workspace } = await newWorkspace(deps);
  await activateChatService(deps, workspace);
  for (const body of ['first conversation', 'second conversation']) {
    const started = await startChatService(deps, workspace, {});
    await postVisitorMessage(deps, started.conversationToken, { body });
  }
  // The first visitor message opened the workspace's digest (nobody of the team is online).
  await eventually(() => teamDigestStore(deps.db).get(workspace.id).then((state) => state ?? undefined));
  const mails = () => emailStore(deps.db).list(workspace.id, { limit: 50 });

  const runs = await Promise.all([1, 2, 3].map(() => sendTeamDigest(deps, { workspaceId: workspace.id })));
  const [mail, ...more] = await mails();
  // One member (the owner): one mail, both conversations in it.
  expect(more).toEqual([]);
  expect(mail.text).toContain('first conversation');
  expect(mail.text).toContain('second conversation');
  const state = (await teamDigestStore(deps.db).get(workspace.id))!;
  const intervalEnd = state.sentAt!.getTime() + deps.config.CHAT_EMAIL_INTERVAL_MINUTES * 60_000;
  // A run that read the state after another had sent moves itself to the interval's end.
  for (const next of runs) if (next) expect(next.getTime()).toBe(intervalEnd);

  const started = await startChatService(deps, workspace, {});
  await postVisitorMessage(deps, started.conversationToken, { body: 'third conversation' });
  expect((await sendTeamDigest(deps, { workspaceId: workspace.id }))?.getTime()).toBe(intervalEnd);
  expect(await mails()).toHaveLength(1);
});
