import { z } from 'zod';
import { route } from '../http/route.js';
import { createUser, login, logout, requireOperator } from './auth.service.js';
import { createUserBody, loginBody, userSchema } from './auth.schemas.js';

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
      200: { description: 'A session token for `Authorization: Bearer`.', schema: z.object({ token: z.string(), user: userSchema }) },
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
      await logout(deps, req.get('authorization')!.replace(/^Bearer\s+/i, '').trim());
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
