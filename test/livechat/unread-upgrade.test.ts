import { afterAll, expect, test } from '@jest/globals';
import { startServices, newWorkspace, type ServiceHarness } from '../support/service-harness.js';
import { uniqueDbName } from '../support/harness.js';
import { postVisitorMessage, agentMessages } from '../../src/livechat/messages.service.js';
import { getConversation, listConversations } from '../../src/livechat/inbox.service.js';
import { activateChatService, startChatService } from './service-support.js';

/**
 * Unread chat messages are selected by their `unread` flag (what every engine narrows a read by), so a
 * database written before the flag existed is upgraded when a node starts: its unread messages count as
 * unread again, its read ones stay read. The upgrade reads every message, so it runs once per database.
 */

const dbName = uniqueDbName('unread');
const open: ServiceHarness[] = [];
async function startNode(): Promise<ServiceHarness> {
  const services = await startServices({ dbName });
  open.push(services);
  return services;
}
afterAll(async () => {
  for (const services of open) await services.close().catch(() => undefined);
});

test('messages stored before the flag: unread ones count again after the upgrade, read ones do not; it runs once', async () => {
  const first = await startNode();
  const { workspace } = await newWorkspace(first.deps);
  await activateChatService(first.deps, workspace);
  const read = await startChatService(first.deps, workspace, {});
  const unread = await startChatService(first.deps, workspace, {});
  await postVisitorMessage(first.deps, read.conversationToken, { body: 'Read by the team' });
  await agentMessages(first.deps, workspace.id, read.conversationId, undefined);
  await postVisitorMessage(first.deps, unread.conversationToken, { body: 'Waiting one' });
  await postVisitorMessage(first.deps, unread.conversationToken, { body: 'Waiting two' });

  // As an earlier version stored them: no flag, and no record of the upgrade.
  const messages = first.deps.db.collection('livechat_messages');
  await messages.updateMany({}, { $unset: { unread: '' } });
  await first.deps.db.collection<{ _id: string }>('once_claims').deleteMany({ _id: { $regex: '^upgrade:' } });
  await first.close();
  open.pop();

  const upgraded = await startNode();
  const counts = async (services: ServiceHarness) => {
    const list = await listConversations(services.deps, workspace.id, { status: 'OPEN', page: 1, limit: 10 });
    return Object.fromEntries(list.items.map((item) => [item.id, item.unreadCount]));
  };
  expect(await counts(upgraded)).toEqual({ [read.conversationId]: 0, [unread.conversationId]: 2 });
  // Read marks work on upgraded messages as on new ones.
  await agentMessages(upgraded.deps, workspace.id, unread.conversationId, undefined);
  expect((await getConversation(upgraded.deps, workspace.id, unread.conversationId)).unreadCount).toBe(0);

  // Done once: a later start does not read every message again (a message without the flag stays as it is).
  await upgraded.deps.db.collection('livechat_messages').updateMany({}, { $unset: { unread: '' } });
  await upgraded.close();
  open.pop();
  const later = await startNode();
  await expect(later.deps.db.collection('livechat_messages').countDocuments({ unread: { $exists: true } })).resolves.toBe(0);
});

test('unread counts of conversations stored before visitor counts were kept: counted among the messages until the next message and read heal them', async () => {
  const first = await startNode();
  const { workspace } = await newWorkspace(first.deps);
  await activateChatService(first.deps, workspace);
  const chat = await startChatService(first.deps, workspace, {});
  await postVisitorMessage(first.deps, chat.conversationToken, { body: 'One' });
  await agentMessages(first.deps, workspace.id, chat.conversationId, undefined);
  await postVisitorMessage(first.deps, chat.conversationToken, { body: 'Two' });
  await postVisitorMessage(first.deps, chat.conversationToken, { body: 'Three' });

  // As an earlier version stored them: no counts on the messages, the summary or the team's read cursor.
  await first.deps.db.collection('livechat_messages').updateMany({}, { $unset: { visitorCount: '' } });
  await first.deps.db.collection('livechat_conversations').updateMany({}, { $unset: { lastVisitorCount: '', 'readByTeam.visitorCount': '' } });
  await first.close();
  open.pop();

  const later = await startNode();
  const unread = async () => (await getConversation(later.deps, workspace.id, chat.conversationId)).unreadCount;
  expect(await unread()).toBe(2);
  // The next message is stored with a count of the visitor messages before it (counted once).
  await postVisitorMessage(later.deps, chat.conversationToken, { body: 'Four' });
  expect(await unread()).toBe(3);
  const [four] = await later.deps.db.collection('livechat_messages').find({ body: 'Four' }).toArray();
  expect(four.visitorCount).toBe(4);
  // The team's read moves its cursor onto a counted message: the count comes off the conversation again.
  await agentMessages(later.deps, workspace.id, chat.conversationId, undefined);
  expect(await unread()).toBe(0);
  await postVisitorMessage(later.deps, chat.conversationToken, { body: 'Five' });
  const reads: string[] = [];
  const client = later.deps.db.getClient();
  const seen = (event: { commandName: string; command: Record<string, unknown> }) => reads.push(`${event.commandName} ${String(event.command[event.commandName])}`);
  client.on('commandStarted', seen);
  try {
    expect(await unread()).toBe(1);
  } finally {
    client.off('commandStarted', seen);
  }
  expect(reads.filter((read) => read.includes('livechat_messages'))).toEqual([]);
});
