import { expect, test } from '@jest/globals';
import { appointmentEmails, formatStart, type AppointmentMailData } from '../../src/email/email.templates.js';

const data: AppointmentMailData = {
  workspaceName: 'Acme <Dental>',
  visitorName: 'Eve <script>alert(1)</script>',
  visitorEmail: 'eve@example.com',
  visitorPhone: '+49 30 1234',
  visitorMessage: 'Line one\nLine "two" & more',
  start: '2025-03-03T13:00:00.000Z',
  durationMinutes: 30,
  timezone: 'Europe/Berlin',
  declineReason: 'Fully <b>booked</b>',
  policyText: 'Cancel 24 h ahead.',
};

test('every appointment mail has a subject, a plain text and an escaped HTML part', () => {
  for (const render of Object.values(appointmentEmails)) {
    const mail = render(data);
    expect(mail.subject.length).toBeGreaterThan(0);
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.text).toContain('Monday, 3 March 2025, 14:00 (Europe/Berlin)');
    expect(mail.text).toContain('30 minutes');
    expect(mail.html).toContain('Monday, 3 March 2025, 14:00 (Europe/Berlin)');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('Acme <Dental>');
  }
  const received = appointmentEmails.visitorReceived(data);
  expect(received.text).toContain('Hello Eve <script>alert(1)</script>,');
  expect(received.html).toContain('Hello Eve &lt;script&gt;alert(1)&lt;/script&gt;,');
  expect(received.html).toContain('Line one<br>Line &quot;two&quot; &amp; more');
  expect(received.text).toContain('Cancel 24 h ahead.');

  const customer = appointmentEmails.customerNotified(data);
  expect(customer.text).toContain('E-mail: eve@example.com');
  expect(customer.text).toContain('Phone: +49 30 1234');

  const declined = appointmentEmails.visitorDeclined(data);
  expect(declined.text).toContain('Reason: Fully <b>booked</b>');
  expect(declined.html).toContain('Fully &lt;b&gt;booked&lt;/b&gt;');
  expect(appointmentEmails.visitorDeclined({ ...data, declineReason: null }).text).not.toContain('Reason:');
  expect(appointmentEmails.visitorConfirmed(data).subject).toBe('Your appointment with Acme <Dental> is confirmed');
});

test('subjects cannot carry header line breaks from user data', () => {
  const mail = appointmentEmails.customerNotified({ ...data, visitorName: 'Eve\r\nBcc: victim@example.com' });
  expect(mail.subject).toBe('New appointment request from Eve Bcc: victim@example.com');
});

test('times render in the plugin timezone, across DST, and an unknown zone falls back to UTC', () => {
  expect(formatStart('2025-07-01T08:15:00Z', 'Europe/Berlin')).toBe('Tuesday, 1 July 2025, 10:15 (Europe/Berlin)');
  expect(formatStart('2025-01-01T08:15:00Z', 'Europe/Berlin')).toBe('Wednesday, 1 January 2025, 09:15 (Europe/Berlin)');
  expect(formatStart('2025-01-01T08:15:00Z', 'Mars/Olympus')).toBe('Wednesday, 1 January 2025, 08:15 (UTC)');
});
