import { describe, expect, test } from '@jest/globals';
import { chatReplyMail, chatTeamMail } from '../../src/email/chat.templates.js';

describe('live-chat continuity mails', () => {
  const team = { workspaceName: 'Bakery', visitorName: null, visitorEmail: 'v@example.org', body: 'a<b and c>d', pageUrl: 'https://x.example/', consoleUrl: 'https://h.example/console' };

  test.each([
    ['en', 'New chat message while you were away (Bakery)', 'New reply from Bakery'],
    ['de-CH', 'Neue Chat-Nachricht während Ihrer Abwesenheit (Bakery)', 'Neue Antwort von Bakery'],
    ['fr', 'Nouveau message de chat pendant votre absence (Bakery)', 'Nouvelle réponse de Bakery'],
    ['es', 'Nuevo mensaje de chat mientras no estabas (Bakery)', 'Nueva respuesta de Bakery'],
    ['xx', 'New chat message while you were away (Bakery)', 'New reply from Bakery'],
    // A name every object inherits is no language.
    ['constructor', 'New chat message while you were away (Bakery)', 'New reply from Bakery'],
  ])('%s', (locale, teamSubject, replySubject) => {
    expect(chatTeamMail({ ...team, locale }).subject).toBe(teamSubject);
    expect(chatReplyMail({ workspaceName: 'Bakery', locale, visitorName: 'Ann', replies: [{ body: 'hi', agentName: null }], pageUrl: null }).subject).toBe(replySubject);
  });

  test('bodies are text: kept verbatim in the text part, escaped in the HTML part; the console link is there', () => {
    const mail = chatTeamMail({ ...team, locale: 'en' });
    expect(mail.text).toContain('a<b and c>d');
    expect(mail.html).toContain('a&lt;b and c&gt;d');
    expect(mail.html).not.toContain('a<b and c>d');
    expect(mail.text).toContain('https://h.example/console');
    expect(mail.text).toContain('v@example.org wrote in the chat');
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
