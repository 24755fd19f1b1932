import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { OPERATOR } from '../support/harness.js';
import { findUserByEmail } from '../../src/auth/auth.service.js';
import { emailStore } from '../../src/email/email.model.js';
import { sendReplyMail } from '../../src/livechat/followup.service.js';
import { postAgentMessage, postVisitorMessage } from '../../src/livechat/messages.service.js';
import { activateChatService, startChatService } from './service-support.js';

// The reply mail to an absent visitor, when two runs of its job meet (two replies enqueued it at once).
let services: ServiceHarness;
beforeAll(async () => {
  services = await startServices();
});
afterAll(async () => {
  await services.close();
});

test('two runs of the reply-mail job at once mail the visitor once; a later reply gets its own mail', async () => {
  const { deps } = services;
  const { workspace } = await newWorkspace(deps);
  await activateChatService(deps, workspace);
  const agentId = (await findUserByEmail(deps, OPERATOR.email))!.id;
  const started = await startChatService(deps, workspace, {});
  await postVisitorMessage(deps, started.conversationToken, { body: 'Please mail me', visitorEmail: 'absent@example.org' });
  await postAgentMessage(deps, workspace.id, started.conversationId, agentId, 'First answer');
  await postAgentMessage(deps, workspace.id, started.conversationId, agentId, 'Second answer');
  const job = { workspaceId: workspace.id, conversationId: started.conversationId };
  const mailsTo = async () => (await emailStore(deps.db).list(workspace.id, { limit: 50 })).filter((mail) => mail.to === 'absent@example.org');

  await Promise.all([sendReplyMail(deps, job), sendReplyMail(deps, job), sendReplyMail(deps, job)]);
  const [first, ...more] = await mailsTo();
  expect(more).toEqual([]);
  expect(first.text).toContain('First answer');
  expect(first.text).toContain('Second answer');

  // Already mailed: a run with nothing new sends nothing; a new reply is mailed on its own.
  await sendReplyMail(deps, job);
  expect(await mailsTo()).toHaveLength(1);
  await postAgentMessage(deps, workspace.id, started.conversationId, agentId, 'Third answer');
  await sendReplyMail(deps, job);
  const mails = await mailsTo();
  expect(mails).toHaveLength(2);
  const third = mails.find((mail) => mail.id !== first.id)!;
  expect(third.text).toContain('Third answer');
  expect(third.text).not.toContain('First answer');
});
