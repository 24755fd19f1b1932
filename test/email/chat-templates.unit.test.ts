import { describe, expect, test } from '@jest/globals';
import { chatReplyMail, chatTeamDigestMail, type DigestConversation } from '../../src/email/chat.templates.js';

describe('live-chat continuity mails', () => {
  const conversation = (n: number, extra: Partial<DigestConversation> = {}): DigestConversation => ({
    visitorName: null,
    visitorEmail: null,
    newMessages: 1,
    newest: `message ${n}`,
    link: `https://h.example/console#/chats/c${n}`,
    ...extra,
  });
  const digest = (locale: string, conversations: DigestConversation[], more = 0) =>
    chatTeamDigestMail({ workspaceName: 'Bakery', locale, conversations, more, consoleUrl: 'https://h.example/console#/chats' });

  test.each([
    ['en', 'New chat message while you were away (Bakery)', 'New chat messages in 10 conversations while you were away (Bakery)', 'New reply from Bakery'],
    ['de-CH', 'Neue Chat-Nachricht während Ihrer Abwesenheit (Bakery)', 'Neue Chat-Nachrichten in 10 Gesprächen während Ihrer Abwesenheit (Bakery)', 'Neue Antwort von Bakery'],
    ['fr', 'Nouveau message de chat pendant votre absence (Bakery)', 'Nouveaux messages de chat dans 10 conversations pendant votre absence (Bakery)', 'Nouvelle réponse de Bakery'],
    ['es', 'Nuevo mensaje de chat mientras no estabas (Bakery)', 'Nuevos mensajes de chat en 10 conversaciones mientras no estabas (Bakery)', 'Nueva respuesta de Bakery'],
    ['xx', 'New chat message while you were away (Bakery)', 'New chat messages in 10 conversations while you were away (Bakery)', 'New reply from Bakery'],
    // A name every object inherits is no language.
    ['constructor', 'New chat message while you were away (Bakery)', 'New chat messages in 10 conversations while you were away (Bakery)', 'New reply from Bakery'],
  ])('%s', (locale, oneSubject, tenSubject, replySubject) => {
    expect(digest(locale, [conversation(1)]).subject).toBe(oneSubject);
    // Listed and left out alike count: the subject names every conversation with news.
    expect(digest(locale, [1, 2, 3, 4].map((n) => conversation(n)), 6).subject).toBe(tenSubject);
    expect(chatReplyMail({ workspaceName: 'Bakery', locale, visitorName: 'Ann', replies: [{ body: 'hi', agentName: null }], pageUrl: null }).subject).toBe(replySubject);
  });

  test('the digest lists each conversation: who, how many new messages, the first lines of the newest, its link in the console', () => {
    const mail = digest('en', [
      conversation(1, { visitorName: 'Vera', visitorEmail: 'vera@example.org', newMessages: 3, newest: 'first line\n\nsecond line\nthird line' }),
      conversation(2, { visitorEmail: 'v@example.org' }),
      conversation(3, { newest: 'x'.repeat(400) }),
    ]);
    expect(mail.text).toContain('Vera <vera@example.org> (3 new messages)\nfirst line\nsecond line…\nAnswer in the console: https://h.example/console#/chats/c1');
    expect(mail.text).not.toContain('third line');
    expect(mail.text).toContain('v@example.org (1 new message)\nmessage 2\nAnswer in the console: https://h.example/console#/chats/c2');
    expect(mail.text).toContain(`A visitor (1 new message)\n${'x'.repeat(300)}…\n`);
    expect(mail.text).not.toContain('more conversation');
  });

  test('the digest in German, with the conversations left out of the list counted and linked', () => {
    const mail = digest('de', [conversation(1, { newMessages: 2 })], 1);
    expect(mail.text).toContain('Besucher haben im Chat von Bakery geschrieben, als niemand online war:');
    expect(mail.text).toContain('Ein Besucher (2 neue Nachrichten)\nmessage 1\nIn der Konsole antworten: https://h.example/console#/chats/c1');
    expect(mail.text).toContain('und 1 weiteres Gespräch, in der Konsole: https://h.example/console#/chats');
    expect(digest('de', [conversation(1)], 5).text).toContain('und 5 weitere Gespräche, in der Konsole');
  });

  test('bodies and names are text: kept verbatim in the text part, escaped in the HTML part', () => {
    const mail = digest('en', [conversation(1, { visitorName: '<i>Eve</i>', newest: 'a<b and c>d' })]);
    expect(mail.text).toContain('a<b and c>d');
    expect(mail.text).toContain('<i>Eve</i>');
    expect(mail.html).toContain('a&lt;b and c&gt;d');
    expect(mail.html).toContain('&lt;i&gt;Eve&lt;/i&gt;');
    expect(mail.html).not.toContain('a<b and c>d');
    expect(mail.html).not.toContain('<i>Eve</i>');
  });

  test('a reply mail lists every batched reply with its author and links back to the page', () => {
    const mail = chatReplyMail({
      workspaceName: 'Bakery\r\nBcc: evil@example.org',
      locale: 'en',
      visitorName: 'Ann',
      replies: [
        { body: 'First', agentName: 'Bob' },
        { body: 'Second', agentName: null },
      ],
      pageUrl: 'https://shop.example/p',
    });
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.text).toContain('Bob: First');
    expect(mail.text).toContain('Team: Second');
    expect(mail.text).toContain('https://shop.example/p');
    expect(mail.text.startsWith('Hello Ann,')).toBe(true);
  });
});
