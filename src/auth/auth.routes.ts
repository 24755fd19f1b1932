import { z } from 'zod';
import { route } from '../http/route.js';
import { createUser, login, logout, requireOperator } from './auth.service.js';
import { changePassword, completePasswordReset, requestPasswordReset } from './passwords.service.js';
import { changePasswordBody, completePasswordResetBody, createUserBody, loginBody, passwordResetBody, sessionSchema, userSchema } from './auth.schemas.js';

const tags = ['Admin: authentication'];

export const authRoutes = [
  route({
    method: 'post',
    path: '/admin/auth/login',
    summary: 'Log in as a team member',
    description: 'Wrong e-mail and wrong password answer the same 401. Repeated failures per e-mail and per client address answer 429 with `Retry-After`.',
    tags,
    auth: 'none',
    body: loginBody,
    responses: {
      200: { description: 'A session token for `Authorization: Bearer`.', schema: sessionSchema },
      401: 'Wrong credentials.',
      429: 'Too many failed attempts.',
    },
    handle: async ({ deps, req, body }) => ({ body: await login(deps, body.email, body.password, req.ip ?? 'unknown') }),
  }),
  route({
    method: 'post',
    path: '/admin/auth/logout',
    summary: 'Revoke the current session',
    tags,
    auth: 'session',
    responses: { 204: { description: 'Revoked.' } },
    handle: async ({ deps, req }) => {
      await logout(deps, bearer(req.get('authorization')));
      return { status: 204 };
    },
  }),
  route({
    method: 'get',
    path: '/admin/me',
    summary: 'The logged-in team member',
    tags,
    auth: 'session',
    responses: { 200: { description: 'The user.', schema: userSchema }, 401: 'No valid session.' },
    handle: async ({ user }) => ({ body: user }),
  }),
  route({
    method: 'post',
    path: '/admin/me/password',
    summary: 'Change my password',
    description:
      '`currentPassword` must be the password now (a wrong one is a 400 issue on `currentPassword` and counts as a failed login: past the login limit, 429). `newPassword`: 8 to 1000 characters. ' +
      'Every other session of the user ends at once on every node (their tokens answer 401, their agent consoles disconnect); the session making the request stays. Open password-reset links stop working.',
    tags,
    auth: 'session',
    body: changePasswordBody,
    responses: { 204: { description: 'Changed.' }, 400: 'Invalid body, or `currentPassword` is wrong.', 429: 'Too many failed attempts.' },
    handle: async ({ deps, req, user, body }) => {
      await changePassword(deps, user, bearer(req.get('authorization')), body, req.ip ?? 'unknown');
      return { status: 204 };
    },
  }),
  route({
    method: 'post',
    path: '/admin/auth/password-reset',
    summary: 'Ask for a password-reset link',
    description:
      'Answers 202 `{}` for any well-formed address, at once and alike whether it belongs to an account or not. When it does, a mail with the link `${PUBLIC_URL}/console#/reset-password/<token>` follows ' +
      '(the token in the URL fragment never reaches a request log). The link works once, for 1 hour; at most 3 mails per address in any hour (further requests answer the same 202 and mail nothing). ' +
      'The mail is listed in no workspace\'s outbox.',
    tags,
    auth: 'none',
    body: passwordResetBody,
    responses: { 202: { description: 'Accepted, whatever the address.', schema: z.object({}) }, 400: 'Not an e-mail address.' },
    handle: async ({ deps, body }) => {
      requestPasswordReset(deps, body.email);
      return { status: 202, body: {} };
    },
  }),
  route({
    method: 'post',
    path: '/admin/auth/password-reset/complete',
    summary: 'Set a new password with a reset link',
    description:
      '`token` from the mailed link; `password` 8 to 1000 characters. An unknown, used or expired token is a 400 `validation_failed` with an issue on `token`. ' +
      'The link then stops working, as do the account\'s other reset links, and every session of the account ends at once on every node (tokens answer 401, agent consoles disconnect). Log in with the new password.',
    tags,
    auth: 'none',
    body: completePasswordResetBody,
    responses: { 204: { description: 'The password is changed.' }, 400: 'Invalid body, or the token is unknown, used or expired (issue on `token`).' },
    handle: async ({ deps, body }) => {
      await completePasswordReset(deps, body);
      return { status: 204 };
    },
  }),
  route({
    method: 'post',
    path: '/admin/users',
    summary: 'Create a team member (operators)',
    tags,
    auth: 'session',
    body: createUserBody,
    responses: { 201: { description: 'Created.', schema: userSchema }, 403: 'Not an operator.', 409: 'E-mail taken.' },
    handle: async ({ deps, user, body }) => {
      requireOperator(user);
      return { status: 201, body: await createUser(deps, body) };
    },
  }),
];

/** The session token of a `session` route's request (authentication has checked the header already). */
function bearer(authorization: string | undefined): string {
  return (authorization ?? '').replace(/^Bearer\s+/i, '').trim();
}
