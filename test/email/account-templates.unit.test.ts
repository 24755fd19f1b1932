import { expect, test } from '@jest/globals';
import { invitationMail, passwordResetMail } from '../../src/email/account.templates.js';

const link = 'https://team.example.com/console#/invitation/inv_abc-DEF_123';

test('the invitation mail names inviter, workspace and role, carries the link, and escapes what people typed', () => {
  const mail = invitationMail({ workspaceName: 'Acme <Dental>', inviterName: 'Eve <script>x</script>', role: 'editor', link, validHours: 72, locale: 'en' });
  expect(mail.subject).toBe('You are invited to join Acme <Dental>');
  expect(mail.text).toContain('Eve <script>x</script> invites you to the team of Acme <Dental> as editor.');
  expect(mail.text).toContain(`Accept the invitation: ${link}`);
  expect(mail.text).toContain('72 hours');
  expect(mail.html).toContain('Eve &lt;script&gt;x&lt;/script&gt;');
  expect(mail.html).not.toContain('<script>');
  expect(mail.html).toContain(link);
});

test('the invitation mail speaks the workspace language (German), English otherwise', () => {
  expect(invitationMail({ workspaceName: 'W', inviterName: 'I', role: 'owner', link, validHours: 72, locale: 'de-CH' }).text).toContain('als Inhaber');
  expect(invitationMail({ workspaceName: 'W', inviterName: 'I', role: 'agent', link, validHours: 72, locale: 'fr' }).subject).toBe('You are invited to join W');
});

test('the reset mail greets by name, carries the link and says how long it works; subjects carry no line breaks', () => {
  const mail = passwordResetMail({ name: 'Rita\r\n<b>', link: 'https://x.test/console#/reset-password/rst_1', validMinutes: 60 });
  expect(mail.subject).toBe('Reset your password');
  expect(mail.text).toContain('Hello Rita\r\n<b>,');
  expect(mail.text).toContain('Choose a new password: https://x.test/console#/reset-password/rst_1');
  expect(mail.text).toContain('60 minutes');
  expect(mail.html).toContain('Rita\r\n&lt;b&gt;,');
  expect(mail.html).not.toContain('<b>');
  const invite = invitationMail({ workspaceName: 'Line\nBreak', inviterName: 'I', role: 'agent', link, validHours: 72, locale: null });
  expect(invite.subject).not.toMatch(/[\r\n]/);
});
